/**
 * Fallbacks that keep an answer identical when the upstream does not carry out an include: the
 * records it would have brought are fetched with batched searches, so the round trips grow with the
 * number of types and chunks, never with the number of records (docs/decisions.md, "Includes the
 * upstream does not carry out").
 */
import { FacadeError } from '../../errors.ts';
import type { FhirResource, SearchParams } from '../../upstream/fhir-client.ts';
import { includePaths, referencesAt, reverseSearch } from './include-targets.ts';

/** Ids per batched search: keeps the URL near 4 KB even with 64-character ids. */
export const IDS_PER_SEARCH = 50;

/** One search as the plan runs it (the caller's bearer and the request's deadline already bound). */
export type FetchRecords = (resourceType: string, params: SearchParams) => Promise<FhirResource[]>;

/** What an include check found, for the capabilities it teaches and the metrics. */
export interface IncludeCheck {
  include: string;
  /** References the include follows from the matches. */
  referenced: number;
  /** Of those, how many the answer lacked (and were fetched). */
  missing: number;
  /** The `Type/id` of those it lacked. */
  missingReferences: Set<string>;
}

/**
 * For each forward include: the records the matches name through the include's elements that are
 * in neither the matches nor the included records, fetched by `_id` in batches. Cheap when the
 * server did its job: nothing is missing and nothing is fetched.
 */
export async function fetchMissingIncludes(
  matches: readonly FhirResource[],
  present: readonly FhirResource[],
  includes: readonly string[],
  fetchRecords: FetchRecords,
): Promise<{ found: FhirResource[]; checks: IncludeCheck[] }> {
  const have = new Set(present.map(keyOf));
  const wanted = new Map<string, Set<string>>();
  const checks: IncludeCheck[] = [];
  for (const include of includes) {
    const target = includePaths(include);
    if (target === undefined) continue;
    const check: IncludeCheck = { include, referenced: 0, missing: 0, missingReferences: new Set() };
    for (const match of matches) {
      for (const path of target.paths) {
        for (const reference of referencesAt(match, path)) {
          const [type = '', id = ''] = reference.split('/');
          if (target.types !== undefined && !target.types.includes(type)) continue;
          check.referenced += 1;
          if (have.has(reference)) continue;
          check.missing += 1;
          check.missingReferences.add(reference);
          const ids = wanted.get(type) ?? new Set<string>();
          ids.add(id);
          wanted.set(type, ids);
        }
      }
    }
    checks.push(check);
  }
  const found: FhirResource[] = [];
  for (const [type, ids] of wanted) {
    for (const batch of batches([...ids])) found.push(...(await searchBatch(fetchRecords, type, '_id', batch)));
  }
  return { found, checks };
}

/** For each revinclude: the records that point at the matches, found by the reverse search (`DocumentReference?encounter=Encounter/a,…`). */
export async function fetchRevIncludes(matches: readonly FhirResource[], revincludes: readonly string[], fetchRecords: FetchRecords): Promise<FhirResource[]> {
  // Typed references: some servers match a bare id only on patient/subject (Medplum).
  const targets = matches.filter((match) => match.id !== undefined).map(keyOf);
  const found: FhirResource[] = [];
  for (const revinclude of revincludes) {
    const reverse = reverseSearch(revinclude);
    if (reverse === undefined) continue;
    for (const batch of batches(targets)) found.push(...(await searchBatch(fetchRecords, reverse.resourceType, reverse.param, batch)));
  }
  return found;
}

/**
 * One batched search (`param=a,b,…`, FHIR's OR). A server that read the comma otherwise would answer
 * nothing, and a shortened answer would pass for a complete one: an empty answer to a batch is
 * checked once with its first value alone, and a record found then is a 502, never a silent gap.
 */
async function searchBatch(fetchRecords: FetchRecords, type: string, param: string, values: readonly string[]): Promise<FhirResource[]> {
  const records = (await fetchRecords(type, [[param, values.join(',')]])).filter((record) => record.resourceType === type);
  if (records.length > 0 || values.length < 2) return records;
  const alone = (await fetchRecords(type, [[param, values[0]!]])).filter((record) => record.resourceType === type);
  if (alone.length > 0) throw new FacadeError('upstream-search-problem', 'the upstream does not read a comma-separated list as OR', { reason: 'no-or-lists' });
  return records;
}

function batches<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += IDS_PER_SEARCH) out.push(items.slice(start, start + IDS_PER_SEARCH));
  return out;
}

export function keyOf(resource: FhirResource): string {
  return `${resource.resourceType}/${resource.id ?? ''}`;
}
