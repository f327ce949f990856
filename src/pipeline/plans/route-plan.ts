/**
 * How each legacy operation is fetched from this upstream: its search (through a patient scope
 * when the type has no patient parameter), or its by-id read (a search by `_id` when the record
 * needs included ones), with includes carried out natively or by fallback (search-plan.ts).
 */
import { FacadeError } from '../../errors.ts';
import type { LegacyParams } from '../../params.ts';
import type { ReadRoute, SearchRoute } from '../../route-types.ts';
import type { SiteCodes } from '../../site-codes.ts';
import type { FhirClient, FhirResource, SearchResult } from '../../upstream/fhir-client.ts';
import type { UpstreamCaller } from '../../access/access-control.ts';
import type { Span } from '../../tracing/span.ts';
import { upstreamSearchParams } from '../upstream-query.ts';
import { filterByPeriod, patientScopeOf } from './type-strategies.ts';
import { searchWithIncludes, type FallbackKind, type PlanContext } from './search-plan.ts';
import type { UpstreamKnowledge } from './upstream-knowledge.ts';

/** What a plan needs of the request: the caller's token, and how the mode calls upstream. */
export interface PlanDeps {
  client: FhirClient;
  knowledge: UpstreamKnowledge;
  upstream: UpstreamCaller;
  /** The codes the site selects its operations' records with. */
  siteCodes: SiteCodes;
  onFallback?: (kind: FallbackKind, value: string) => void;
  /** The span the request's upstream calls are made under, when there is one. */
  trace?: Span;
}

/** One legacy request's plan context: one deadline for all its upstream calls (ended by `end`). */
function contextFor(token: string | undefined, deps: PlanDeps): PlanContext & { end(): void } {
  const deadline = deps.client.deadline(undefined, deps.trace);
  // One budget for the whole request: its search reads at most UPSTREAM_MAX_PAGES pages, and with
  // its fallback searches it reads at most twice that, so memory and round trips stay bounded.
  const budget = 2 * deps.client.maxPages;
  let pages = 0;
  return {
    capabilities: () => deps.knowledge.current(deadline),
    search: async (type, params) => {
      const result = await deps.upstream(token, (bearer) => deps.client.search(type, params, bearer, deadline));
      pages += result.pages;
      if (pages > budget) throw new FacadeError('upstream-too-many-pages', `more than ${budget} pages for one request`, { reason: 'too-many-pages' });
      return result;
    },
    onFallback: deps.onFallback,
    end: () => deadline.end?.(),
  };
}

/** The records of a search route: the matches and what the mappers read beside them. */
export async function fetchSearch(route: SearchRoute, params: LegacyParams, token: string | undefined, deps: PlanDeps): Promise<SearchResult> {
  const patientScope = patientScopeOf(route.upstream.resourceType);
  const context = contextFor(token, deps);
  try {
    return await searchIn(context, route, params, patientScope, deps);
  } finally {
    context.end();
  }
}

async function searchIn(
  context: PlanContext,
  route: SearchRoute,
  params: LegacyParams,
  patientScope: ReturnType<typeof patientScopeOf>,
  deps: PlanDeps,
): Promise<SearchResult> {
  const { resourceType, include = [], revinclude = [] } = route.upstream;
  if (patientScope === undefined || params.patient === undefined) {
    const revincludes = params._revinclude === undefined ? revinclude : [...revinclude, params._revinclude];
    const result = await searchWithIncludes(
      { resourceType, params: upstreamSearchParams(route, params, deps.siteCodes), includes: include, revincludes },
      context,
    );
    // A type with no date parameter (Coverage): the legacy date range compared with its period here.
    return { ...result, matches: filterByPeriod(resourceType, result.matches, params) };
  }
  // A type with no patient parameter (Practitioner): the patient's records of the scope type, and what they include.
  const scoped = await searchWithIncludes(
    { resourceType: patientScope.resourceType, params: [['patient', `Patient/${params.patient}`]], includes: [patientScope.include], revincludes: [] },
    context,
  );
  return { matches: scoped.included.filter((resource) => resource.resourceType === resourceType), included: [], pages: scoped.pages };
}

/** The record of a by-id read and the records it includes; `undefined` when there is none. */
export async function fetchRead(
  route: ReadRoute,
  id: string,
  token: string | undefined,
  deps: PlanDeps,
): Promise<{ record: FhirResource | undefined; included: FhirResource[]; pages: number }> {
  const { resourceType, include = [], revinclude = [] } = route.upstream;
  if (include.length === 0 && revinclude.length === 0) {
    const deadline = deps.client.deadline(undefined, deps.trace);
    try {
      const record = await deps.upstream(token, (bearer) => deps.client.read(resourceType, id, bearer, deadline));
      return { record, included: [], pages: 1 };
    } finally {
      deadline.end?.();
    }
  }
  // A read that needs referenced records is a search by _id, so they come in the same round trip.
  const context = contextFor(token, deps);
  try {
    const result = await searchWithIncludes(
      { resourceType, params: [['_id', id], ...upstreamSearchParams(route, {}, deps.siteCodes)], includes: include, revincludes: revinclude },
      context,
    );
    return { record: result.matches.find((match) => match.id === id), included: result.included, pages: result.pages };
  } finally {
    context.end();
  }
}
