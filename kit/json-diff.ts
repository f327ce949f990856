/**
 * Structural, FHIR-aware comparison of two JSON values parsed by json-text.ts.
 *
 * - Numbers are compared as written (`1.50` ≠ `1.5`); strings, booleans and null by value.
 * - Object members by key; their order only when `rules.keyOrder` is set.
 * - A Bundle's `entry` array is matched by `full_url` (else `resource.id`; entries with neither, or
 *   with a repeated label, by content, then in order), so a reordered entry is no difference while
 *   a missing or extra one is; every other array is compared by position.
 * - A string holding serialized JSON on both sides (the Encounter record, the Assessment meta) is
 *   compared as the JSON it holds; paths continue from the string's own path.
 * - A path an ignore rule names is skipped with everything under it; so is the `id` of a body that
 *   is a Bundle on both sides (each system generates its own).
 */
import type { DiffRules } from './diff-rules.ts';
import { isJsonObject, JsonNumber, parseEmbeddedJson, serializeJson, type JsonObject, type JsonValue } from './json-text.ts';
import { keySegment, labelSegment, renderPath, ruleMatches, type JsonPath } from './json-path.ts';

export type DifferenceKind = 'changed' | 'missing' | 'extra' | 'key-order';

/** One difference: `missing` is on the left only, `extra` on the right only. */
export interface Difference {
  /** `status`, `headers.<name>`, or a JSON path into the body (`$…`). */
  path: string;
  /**
   * The body path as segments (absent for `status` and headers): grouping generalizes them into a
   * pattern without re-parsing `path`, whose labels may hold any character an answer put there.
   */
  segments?: JsonPath;
  kind: DifferenceKind;
  /** The left value as JSON text (capped in length); absent for `extra`. */
  left?: string;
  right?: string;
}

/** Values in differences are capped: a missing entry can be kilobytes, and reports are read by people. */
const MAX_VALUE_TEXT = 4000;

export function valueText(value: JsonValue): string {
  const text = serializeJson(value);
  return text.length > MAX_VALUE_TEXT ? `${text.slice(0, MAX_VALUE_TEXT)}…` : text;
}

/**
 * How many strings holding JSON inside strings holding JSON are looked into (the Encounter record
 * and the Assessment meta are one level); deeper ones are compared as strings, which keeps the
 * recursion bounded whatever an answer holds.
 */
const MAX_EMBEDDED_LEVELS = 2;

export function diffJson(left: JsonValue, right: JsonValue, rules: DiffRules): Difference[] {
  const differences: Difference[] = [];
  compare(left, right, [], rules, differences, 0);
  return differences;
}

function compare(left: JsonValue, right: JsonValue, path: JsonPath, rules: DiffRules, out: Difference[], embedded: number): void {
  if (ignored(path, rules)) return;
  if (left instanceof JsonNumber && right instanceof JsonNumber) {
    if (left.text !== right.text) changed(left, right, path, out);
  } else if (typeof left === 'string' && typeof right === 'string') {
    if (left === right) return;
    const leftJson = embedded < MAX_EMBEDDED_LEVELS ? parseEmbeddedJson(left) : undefined;
    const rightJson = leftJson !== undefined ? parseEmbeddedJson(right) : undefined;
    if (leftJson !== undefined && rightJson !== undefined) compare(leftJson, rightJson, path, rules, out, embedded + 1);
    else changed(left, right, path, out);
  } else if (Array.isArray(left) && Array.isArray(right)) {
    compareByPosition(left, right, path, rules, out, embedded);
  } else if (isJsonObject(left) && isJsonObject(right)) {
    compareObjects(left, right, path, rules, out, embedded);
  } else if (left !== right) {
    changed(left, right, path, out);
  }
}

function compareObjects(left: JsonObject, right: JsonObject, path: JsonPath, rules: DiffRules, out: Difference[], embedded: number): void {
  const isBundle = left.get('resourceType') === 'Bundle' && right.get('resourceType') === 'Bundle';
  // The answer's own Bundle id is generated per answer; any other id (a Bundle inside, a body of
  // another type on one side) is data and is compared.
  const skipId = !rules.compareBundleId && isBundle && path.length === 0;
  const compared = (key: string) => !(skipId && key === 'id') && !ignored([...path, keySegment(key)], rules);
  if (rules.keyOrder) {
    const leftOrder = [...left.keys()].filter((key) => right.has(key) && compared(key));
    const rightOrder = [...right.keys()].filter((key) => left.has(key) && compared(key));
    if (leftOrder.join('\u0000') !== rightOrder.join('\u0000')) {
      out.push({ path: renderPath(path), segments: path, kind: 'key-order', left: JSON.stringify(leftOrder), right: JSON.stringify(rightOrder) });
    }
  }
  for (const [key, leftValue] of left) {
    if (skipId && key === 'id') continue;
    const memberPath = [...path, keySegment(key)];
    const rightValue = right.get(key);
    if (rightValue === undefined) {
      if (!ignored(memberPath, rules)) out.push({ path: renderPath(memberPath), segments: memberPath, kind: 'missing', left: valueText(leftValue) });
    } else if (isBundle && key === 'entry' && rules.matchEntriesBy === 'full_url' && Array.isArray(leftValue) && Array.isArray(rightValue)) {
      compareEntries(leftValue, rightValue, memberPath, rules, out, embedded);
    } else {
      compare(leftValue, rightValue, memberPath, rules, out, embedded);
    }
  }
  for (const [key, rightValue] of right) {
    if (left.has(key) || (skipId && key === 'id')) continue;
    const memberPath = [...path, keySegment(key)];
    if (!ignored(memberPath, rules)) out.push({ path: renderPath(memberPath), segments: memberPath, kind: 'extra', right: valueText(rightValue) });
  }
}

function compareByPosition(left: JsonValue[], right: JsonValue[], path: JsonPath, rules: DiffRules, out: Difference[], embedded: number): void {
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const itemPath = [...path, labelSegment(index)];
    const leftItem = left[index];
    const rightItem = right[index];
    if (leftItem !== undefined && rightItem !== undefined) compare(leftItem, rightItem, itemPath, rules, out, embedded);
    else if (ignored(itemPath, rules)) continue;
    else if (leftItem !== undefined) out.push({ path: renderPath(itemPath), segments: itemPath, kind: 'missing', left: valueText(leftItem) });
    else if (rightItem !== undefined) out.push({ path: renderPath(itemPath), segments: itemPath, kind: 'extra', right: valueText(rightItem) });
  }
}

/**
 * Entries matched by their labels (see `entryLabels`). An entry whose label is unique on both sides
 * is matched by it. Entries without a label of their own (`position=…`), and entries whose label is
 * repeated on either side, are matched within their group by content first (equal once the ignore
 * rules are applied), then what is left is paired in order. Reported at the left entry's label,
 * then the right's extras at theirs.
 */
function compareEntries(left: JsonValue[], right: JsonValue[], path: JsonPath, rules: DiffRules, out: Difference[], embedded: number): void {
  if (ignored(path, rules)) return;
  const leftLabels = entryLabels(left);
  const rightLabels = entryLabels(right);
  const rightGroups = new Map<string, number[]>();
  for (const [index, label] of rightLabels.entries()) rightGroups.set(entryGroup(label), [...(rightGroups.get(entryGroup(label)) ?? []), index]);
  const leftGroups = new Map<string, number[]>();
  for (const [index, label] of leftLabels.entries()) leftGroups.set(entryGroup(label), [...(leftGroups.get(entryGroup(label)) ?? []), index]);
  const pairOf = new Map<number, number>(); // left index → right index
  for (const [group, leftIndexes] of leftGroups) {
    const free = [...(rightGroups.get(group) ?? [])];
    const unmatched: number[] = [];
    for (const leftIndex of leftIndexes) {
      const entryPath = [...path, labelSegment(leftLabels[leftIndex]!)];
      const equal =
        leftIndexes.length === 1 && free.length === 1
          ? -1
          : free.findIndex((rightIndex) => sameUnderRules(left[leftIndex]!, right[rightIndex]!, entryPath, rules, embedded));

      if (equal >= 0) pairOf.set(leftIndex, free.splice(equal, 1)[0]!);
      else unmatched.push(leftIndex);
    }
    for (const leftIndex of unmatched) {
      const rightIndex = free.shift();
      if (rightIndex !== undefined) pairOf.set(leftIndex, rightIndex);
    }
  }
  const pairedRight = new Set(pairOf.values());
  left.forEach((leftEntry, index) => {
    const entryPath = [...path, labelSegment(leftLabels[index]!)];
    const rightIndex = pairOf.get(index);
    if (rightIndex !== undefined) compare(leftEntry, right[rightIndex]!, entryPath, rules, out, embedded);
    else if (!ignored(entryPath, rules)) out.push({ path: renderPath(entryPath), segments: entryPath, kind: 'missing', left: valueText(leftEntry) });
  });
  right.forEach((rightEntry, index) => {
    const entryPath = [...path, labelSegment(rightLabels[index]!)];
    if (!pairedRight.has(index) && !ignored(entryPath, rules))
      out.push({ path: renderPath(entryPath), segments: entryPath, kind: 'extra', right: valueText(rightEntry) });
  });
}

const FIRST_DIFFERENCE = new Error('first difference');

/** Whether two values compare equal, stopping at the first difference. */
function sameUnderRules(left: JsonValue, right: JsonValue, path: JsonPath, rules: DiffRules, embedded: number): boolean {
  const probe: Difference[] = [];
  probe.push = () => {
    throw FIRST_DIFFERENCE;
  };
  try {
    compare(left, right, path, rules, probe, embedded);
    return true;
  } catch (error) {
    if (error === FIRST_DIFFERENCE) return false;
    throw error;
  }
}

/** Entries of one group are matched among themselves: a label without its `#n`, and every entry without a label of its own. */
function entryGroup(label: string): string {
  return label.startsWith('position=') ? 'position' : label.replace(/#\d+$/, '');
}

/**
 * The label an entry is matched by: `full_url=/Observation/5` when its `full_url` names an id
 * (spec 2.1: the id part may be empty), else `id=Observation/5` from the resource, else
 * `position=<n>` among the entries that have neither. A label repeated in one Bundle gets `#2`, `#3`….
 */
export function entryLabels(entries: JsonValue[]): string[] {
  const seen = new Map<string, number>();
  let unlabelled = 0;
  return entries.map((entry) => {
    let label: string;
    const fullUrl = isJsonObject(entry) ? entry.get('full_url') : undefined;
    const resource = isJsonObject(entry) ? entry.get('resource') : undefined;
    const id = isJsonObject(resource) ? resource.get('id') : undefined;
    if (typeof fullUrl === 'string' && /[^/]$/.test(fullUrl)) label = `full_url=${fullUrl}`;
    else if (typeof id === 'string' && id !== '' && isJsonObject(resource)) label = `id=${String(resource.get('resourceType') ?? '')}/${id}`;
    else {
      unlabelled += 1;
      label = `position=${unlabelled}`;
    }
    const count = (seen.get(label) ?? 0) + 1;
    seen.set(label, count);
    return count === 1 ? label : `${label}#${count}`;
  });
}

function ignored(path: JsonPath, rules: DiffRules): boolean {
  return rules.ignore.some((rule) => ruleMatches(rule, path));
}

function changed(left: JsonValue, right: JsonValue, path: JsonPath, out: Difference[]): void {
  out.push({ path: renderPath(path), segments: path, kind: 'changed', left: valueText(left), right: valueText(right) });
}
