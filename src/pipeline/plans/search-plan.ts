/**
 * How one FHIR search with includes is fetched from this upstream: the includes it carries out are
 * sent, the others are fetched by the fallbacks, and what a search showed is remembered (the
 * upstream's capabilities). The one place that decides it; src/pipeline/legacy-operation.ts asks for
 * records and maps them (docs/decisions.md, "Includes the upstream does not carry out").
 */
import { FacadeError } from '../../errors.ts';
import type { UpstreamCapabilities } from '../../upstream/capabilities.ts';
import type { FhirResource, SearchParams, SearchResult } from '../../upstream/fhir-client.ts';
import { fetchMissingIncludes, fetchRevIncludes, keyOf, type FetchRecords } from './include-fallbacks.ts';
import { adaptParams } from './param-fallbacks.ts';

/** One search as a plan wants it: the query without includes, and the includes it needs. */
export interface PlannedSearch {
  resourceType: string;
  params: SearchParams;
  includes: readonly string[];
  revincludes: readonly string[];
}

/** The smallest cap a server puts on what one include brings (Azure's documented 100). */
const SMALLEST_INCLUDE_CAP = 100;

/** A fallback the plan used, for `/metrics`: an include or revinclude fetched by other searches, a parameter put another way or applied here. */
export type FallbackKind = 'include' | 'revinclude' | 'includes-refused' | 'param-substituted' | 'param-filtered';

export interface PlanContext {
  /** What the upstream can do; read (from `/metadata` the first time) only by a search with includes. */
  capabilities: () => Promise<UpstreamCapabilities>;
  /** Runs one search of the upstream (token and deadline bound). */
  search: (resourceType: string, params: SearchParams) => Promise<SearchResult>;
  onFallback?: (kind: FallbackKind, value: string) => void;
}

/** Every record of the search and of its includes, carried out natively or by fallback. */
export async function searchWithIncludes(planned: PlannedSearch, plan: PlanContext): Promise<SearchResult> {
  const { resourceType, params } = planned;
  let pages = 0;
  // Every search of the plan counts in the request's upstream round trips (the request log, /metrics).
  const ctx: PlanContext = {
    ...plan,
    search: async (type, query) => {
      const result = await plan.search(type, query);
      pages += result.pages;
      return result;
    },
  };
  const capabilities = await ctx.capabilities();
  const adapted = adaptParams(resourceType, params, capabilities);
  for (const param of adapted.substituted) ctx.onFallback?.('param-substituted', `${resourceType}:${param}`);
  for (const filter of adapted.filters) ctx.onFallback?.('param-filtered', `${resourceType}:${filter.param}`);
  // Records a filter here drops would still have brought their includes: the fallbacks then fetch
  // what the kept ones need instead.
  const native = adapted.filters.length === 0;
  let includes = native ? planned.includes.filter((include) => capabilities.include(resourceType, include) !== 'no') : [];
  let revincludes = native ? planned.revincludes.filter((revinclude) => capabilities.revinclude(resourceType, revinclude) !== 'no') : [];
  let result: SearchResult;
  try {
    result = await ctx.search(resourceType, [...adapted.params, ...includes.map(includeParam), ...revincludes.map(revincludeParam)]);
  } catch (error) {
    // A strict server refuses an include it does not support with 400: the search without any of
    // them tells whether that was it, and the fallbacks then bring every included record.
    if (!(error instanceof FacadeError && error.reason === 'http-400') || includes.length + revincludes.length === 0) throw error;
    result = await ctx.search(resourceType, adapted.params);
    for (const include of includes) capabilities.observe('include', resourceType, include, false);
    for (const revinclude of revincludes) capabilities.observe('revinclude', resourceType, revinclude, false);
    ctx.onFallback?.('includes-refused', resourceType);
    includes = [];
    revincludes = [];
  }
  if (!native) result = { ...result, matches: result.matches.filter((match) => adapted.filters.every((filter) => filter.keep(match))), included: [] };
  const fetchRecords: FetchRecords = async (type, query) => (await ctx.search(type, query)).matches;
  const matched = new Set(result.matches.map(keyOf));
  const included = new Map(result.included.map((resource) => [keyOf(resource), resource]));
  const add = (records: readonly FhirResource[]) => {
    for (const record of records) if (!included.has(keyOf(record)) && !matched.has(keyOf(record))) included.set(keyOf(record), record);
  };

  const forward = await fetchMissingIncludes(result.matches, [...result.matches, ...included.values()], planned.includes, fetchRecords);
  add(forward.found);
  for (const check of forward.checks) {
    if (check.missing > 0) ctx.onFallback?.('include', check.include);
    // Only an include sent and left wholly undone teaches "unsupported"; a partial one may be a cap.
    if (includes.includes(check.include) && check.referenced > 0) {
      const foundSome = forward.found.some((record) => check.missingReferences.has(keyOf(record)));
      if (check.missing === 0) capabilities.observe('include', resourceType, check.include, true);
      else if (check.missing === check.referenced && foundSome) capabilities.observe('include', resourceType, check.include, false);
    }
  }

  for (const revinclude of planned.revincludes) {
    const type = revinclude.split(':')[0] ?? '';
    const sent = revincludes.includes(revinclude);
    const brought = result.included.filter((resource) => resource.resourceType === type).length;
    if (sent && brought > 0) capabilities.observe('revinclude', resourceType, revinclude, true);
    // Servers cap what an include brings (Azure 100, HAPI 1,000 a page) and say so at best in a
    // warning: as many as a cap, and the reverse search checks that nothing was cut off.
    const mayBeCapped = brought >= SMALLEST_INCLUDE_CAP;
    // Sent and known to work, or nothing to point at: the answer stands as it came.
    if (result.matches.length === 0 || (sent && !mayBeCapped && (brought > 0 || capabilities.revinclude(resourceType, revinclude) === 'yes'))) continue;
    // Not sent, or sent to a server that may have ignored it: the reverse search finds what it would have brought.
    const found = await fetchRevIncludes(result.matches, [revinclude], fetchRecords);
    if (sent && !mayBeCapped && found.length > 0) capabilities.observe('revinclude', resourceType, revinclude, false);
    if (found.length > 0 || !sent) ctx.onFallback?.('revinclude', revinclude);
    add(found);
  }
  return { matches: result.matches, included: canonicalOrder([...included.values()]), pages };
}

/**
 * Included records in one order whatever the server's: by type, then id (numbers as numbers).
 * Servers order includes differently, and so do the fallbacks; the legacy answer must not.
 */
function canonicalOrder(records: FhirResource[]): FhirResource[] {
  const id = (record: FhirResource) => record.id ?? '';
  // Numeric collation makes `01` and `1` equal: the plain comparison then decides, never the server's order.
  return records.sort(
    (a, b) =>
      a.resourceType.localeCompare(b.resourceType) || id(a).localeCompare(id(b), 'en', { numeric: true }) || (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0),
  );
}

function includeParam(include: string): [string, string] {
  return ['_include', include];
}

function revincludeParam(revinclude: string): [string, string] {
  return ['_revinclude', revinclude];
}
