/**
 * Reads an upstream body as FHIR JSON, refusing what the rest of the service could only misread.
 * An answer that breaks FHIR JSON's shape (an `entry` or `link` that is not an array, an entry
 * without a resource object, a `search` that is not an object) is an upstream failure (502), never
 * read as "nothing there"; so is a value no legacy payload could carry faithfully: nesting deeper
 * than any FHIR resource, or a number beyond what a double holds. See docs/decisions.md
 * ("Talking to the upstream").
 */
import { FacadeError } from '../errors.ts';
import { MAX_JSON_DEPTH } from '../json-limits.ts';

/** A FHIR resource as the client sees it: only `resourceType` and `id` are relied on. */
export interface FhirResource {
  resourceType: string;
  id?: string;
  [key: string]: unknown;
}

/** One entry of a search Bundle: its resource and what the server says it is there for. */
export interface BundleEntry {
  resource: FhirResource;
  /** `search.mode` as written: `match`, `include` or `outcome`; undefined when not written. */
  mode: 'match' | 'include' | 'outcome' | undefined;
}

export interface ParsedBundle {
  entries: BundleEntry[];
  /** The `next` link as written; undefined on the last page. */
  next: string | undefined;
}

const SEARCH_MODES = new Set(['match', 'include', 'outcome']);

/** A resource body (a read): JSON, usable, with a string `resourceType` and a string `id` if any. */
export function parseResourceBody(body: string): FhirResource {
  const value = parseUsableJson(body);
  if (!isResource(value)) throw badBody('the body is not a FHIR resource');
  return value;
}

/** A search Bundle page, its shape checked wherever the service reads it. */
export function parseBundleBody(body: string): ParsedBundle {
  const bundle = parseResourceBody(body);
  if (bundle.resourceType !== 'Bundle') throw badBody('the body is not a Bundle');
  return { entries: arrayMember(bundle, 'entry').map(bundleEntry), next: nextLink(arrayMember(bundle, 'link')) };
}

function bundleEntry(entry: unknown): BundleEntry {
  if (!isObject(entry)) throw badBody('a Bundle entry is not an object');
  if (!isResource(entry.resource)) throw badBody('a Bundle entry has no resource');
  if (entry.search === undefined) return { resource: entry.resource, mode: undefined };
  if (!isObject(entry.search)) throw badBody('a Bundle entry search is not an object');
  const { mode } = entry.search;
  if (mode === undefined) return { resource: entry.resource, mode: undefined };
  if (typeof mode !== 'string' || !SEARCH_MODES.has(mode)) throw badBody('a Bundle entry has an unknown search mode');
  return { resource: entry.resource, mode: mode as BundleEntry['mode'] };
}

/** The one `next` link of a page; two of them would leave the rest of the search ambiguous. */
function nextLink(links: unknown[]): string | undefined {
  let next: string | undefined;
  for (const link of links) {
    if (!isObject(link) || typeof link.relation !== 'string' || typeof link.url !== 'string') {
      throw badBody('a Bundle link is not {relation, url}');
    }
    if (link.relation !== 'next') continue;
    if (next !== undefined) throw badBody('a Bundle page has two next links');
    if (link.url === '') throw badBody('a next link is empty');
    next = link.url;
  }
  return next;
}

/** A member FHIR gives as an array (0..*): absent is `[]`, anything but an array is a broken Bundle. */
function arrayMember(bundle: FhirResource, name: string): unknown[] {
  const member = bundle[name];
  if (member === undefined) return [];
  if (!Array.isArray(member)) throw badBody(`Bundle.${name} is not an array`);
  return member;
}

/**
 * `JSON.parse`, then one walk with an explicit stack that refuses nesting deeper than
 * MAX_JSON_DEPTH (mapping and serializing such a value would overflow the call stack: a 500) and
 * numbers `JSON.parse` could not hold (`1e400` would be written back as `null`, `1e-400` as `0`).
 */
export function parseUsableJson(body: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new FacadeError('upstream-bad-body', 'the body is not JSON', { cause: error, reason: 'not-json' });
  }
  checkDepthAndNumbers(value);
  if (MAY_UNDERFLOW.test(body)) checkNoUnderflow(body);
  return value;
}

function checkDepthAndNumbers(root: unknown): void {
  const pending: { value: unknown; depth: number }[] = [{ value: root, depth: 0 }];
  while (pending.length > 0) {
    const { value, depth } = pending.pop()!;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw badBody('a number is beyond the range of a double', 'number-out-of-range');
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_JSON_DEPTH) throw badBody(`the body nests deeper than ${MAX_JSON_DEPTH} levels`, 'too-deep');
    const members = Array.isArray(value) ? value : Object.values(value);
    for (const member of members) {
      if (typeof member === 'object' && member !== null) pending.push({ value: member, depth: depth + 1 });
      else if (typeof member === 'number' && !Number.isFinite(member)) throw badBody('a number is beyond the range of a double', 'number-out-of-range');
    }
  }
}

/**
 * A cheap first look: only a number with a three-digit negative exponent, or with hundreds of zeros
 * after its point, can be too small for a double. The exact scan runs on such rare bodies alone.
 */
const MAY_UNDERFLOW = /\d[eE]-\d{3}|\.0{300}/;
/** A JSON string (skipped whole, so nothing inside one is read as a number) or a number. */
const STRING_OR_NUMBER = /"(?:[^"\\]|\\.)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** Refuses a number written non-zero that `JSON.parse` rounded to zero (`1e-400`). */
function checkNoUnderflow(body: string): void {
  for (const [token] of body.matchAll(STRING_OR_NUMBER)) {
    if (token.startsWith('"')) continue;
    const mantissa = token.split(/[eE]/)[0] ?? '';
    if (Number(token) === 0 && /[1-9]/.test(mantissa)) throw badBody('a number is below the range of a double', 'number-out-of-range');
  }
}

/** `reason`: what the operator's log says (a body too deep, a number out of range, or FHIR's shape broken). */
function badBody(detail: string, reason = 'not-fhir'): FacadeError {
  return new FacadeError('upstream-bad-body', detail, { reason });
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isResource(value: unknown): value is FhirResource {
  return isObject(value) && typeof value.resourceType === 'string' && (value.id === undefined || typeof value.id === 'string');
}
