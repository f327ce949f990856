/**
 * One legacy operation from request to payload: auth policy → parameters → upstream FHIR query →
 * mapper → envelope. Nothing here is specific to one endpoint; the route entry says it all.
 */
import type { Json } from '../fhir/primitives.ts';
import { ownEntry } from '../fhir/primitives.ts';
import { createMapContext, type LegacyShape, type MapContext } from '../../mappers/legacy-shape.ts';
import type { LegacyTime } from '../../mappers/legacy-time.ts';
import { FacadeError } from '../errors.ts';
import { PARAMETERS, parseLegacyParams, parseRecordId, type LegacyParams, type ParamName } from '../params.ts';
import type { ReadRoute, Route, SearchRoute } from '../route-types.ts';
import type { SiteCodes } from '../site-codes.ts';
import type { FhirClient, FhirResource } from '../upstream/fhir-client.ts';
import { passthroughAccess, patientOf, UNRESTRICTED, type RequestAccess, type UpstreamCaller } from '../access/access-control.ts';
import { enforceAuthPolicy, refuseTokenElsewhere } from '../access/token-policy.ts';
import { legacyBundle, type MappedEntry } from './envelope.ts';
import { fetchRead, fetchSearch, type PlanDeps } from './plans/route-plan.ts';
import type { FallbackKind } from './plans/search-plan.ts';
import type { UpstreamKnowledge } from './plans/upstream-knowledge.ts';
import { inChildSpan, type Span } from '../tracing/span.ts';

/** A legacy request reduced to what the pipeline reads. */
export interface LegacyRequest {
  /** Query parameters (for POST `_search`: the query and the form body together). */
  query: URLSearchParams;
  /** The `:id` path segment of a by-id read. */
  id?: string;
  token: string | undefined;
}

export interface PipelineDeps {
  client: FhirClient;
  /** What the service knows of its upstream (capabilities), for the plans. */
  knowledge: UpstreamKnowledge;
  /** The codes the site selects its operations' records with (src/site-codes.ts). */
  siteCodes: SiteCodes;
  /** Id of each response Bundle ("generated per response", spec 2.1). */
  newBundleId: () => string;
  /** The old system's forms of time, in the site's zone (mappers/legacy-time.ts). */
  legacyTime: LegacyTime;
  /** Makes each upstream call with the bearer of the access mode (passthrough: the caller's token). */
  upstream?: UpstreamCaller;
  /** Told each fallback a plan uses (for /metrics). */
  onFallback?: (kind: FallbackKind, value: string) => void;
}

/** What the pipeline answers, and how many upstream pages it took (for the request log). */
export interface PipelineResult {
  payload: Json | Json[];
  upstreamPages: number;
  /** `Type/id` of every record the answer shows (for the audit log). */
  resourceIds: string[];
}

/** A request that passed its route's auth policy and parameter validation: all the rest depends on. */
export interface PreparedRequest {
  route: Route;
  params: LegacyParams;
  /** The validated record id of a by-id read. */
  id: string | undefined;
  token: string | undefined;
  /** Who the caller is and what it may see (src/access/access-control.ts); unrestricted until admitted. */
  access: RequestAccess;
}

/** Enforces the auth policy and validates the parameters; every 4xx of a request comes from here. */
export function prepareRequest(route: Route, request: LegacyRequest): PreparedRequest {
  enforceAuthPolicy(route.auth, request.token);
  refuseTokenElsewhere(request.token, request.query, request.id);
  const id = route.kind === 'read' ? parseRecordId(request.id ?? '') : undefined;
  return { route, params: parseLegacyParams(request.query, route.params), id, token: request.token, access: UNRESTRICTED };
}

/**
 * The request as a stable string without the token: route, id and the validated parameters in a
 * fixed order. Equal requests give equal keys whatever their parameter order or spelling in the URL.
 */
export function canonicalRequestKey(prepared: PreparedRequest): string {
  const params: [string, unknown][] = [];
  // The catalog's names in a fixed order instead of sorting each request's entries: the same key.
  for (const name of PARAMETER_ORDER) {
    if (!Object.hasOwn(prepared.params, name)) continue;
    const value: unknown = prepared.params[name];
    params.push([name, Array.isArray(value) ? [...(value as string[])].sort() : value]);
  }
  if (params.length !== Object.keys(prepared.params).length) return slowCanonicalKey(prepared);
  return JSON.stringify([prepared.route.name, prepared.id ?? null, params]);
}

/** Every parameter name of the catalog in the order the key lists them. */
const PARAMETER_ORDER = (Object.keys(PARAMETERS) as ParamName[]).sort((a, b) => a.localeCompare(b));

/** The key of parameters outside the catalog (none today): every entry, sorted by name. */
function slowCanonicalKey(prepared: PreparedRequest): string {
  const params = Object.entries(prepared.params)
    .map(([name, value]) => [name, Array.isArray(value) ? [...value].sort() : value] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([prepared.route.name, prepared.id ?? null, params]);
}

/**
 * Runs a prepared request against the upstream and maps the answer. `trace` is the span its
 * upstream calls and its mapping are recorded under, when there is one (src/tracing/span.ts).
 */
export async function runRequest(prepared: PreparedRequest, deps: PipelineDeps, trace?: Span): Promise<PipelineResult> {
  const { route } = prepared;
  return route.kind === 'read' ? readRecord(route, prepared, deps, trace) : search(route, prepared, deps, trace);
}

async function search(route: SearchRoute, request: PreparedRequest, deps: PipelineDeps, trace: Span | undefined): Promise<PipelineResult> {
  const { params } = request;
  const result = await fetchSearch(route, params, request.token, planDeps(deps, trace));
  return inChildSpan(trace, 'map', async (span) => {
    const { matches, included } = request.access.visible(route, {
      matches: result.matches,
      included: result.included,
    });
    const context = createMapContext([...matches, ...included], deps.legacyTime);
    const entries: MappedEntry[] = matches.map((resource) => mapEntry(resource, route.shape, context));
    for (const resource of included) {
      const shape = ownEntry(route.includedEntries, resource.resourceType);
      if (shape) entries.push(mapEntry(resource, shape, context));
    }
    const payload = route.envelope === 'array' ? entries.map((entry) => entry.resource) : legacyBundle(route.bundleType, entries, deps.newBundleId());
    if (span?.recording) span.set('facade.records', entries.length);
    return { payload, upstreamPages: result.pages, resourceIds: idsOf([...matches, ...included]) };
  });
}

function planDeps(deps: PipelineDeps, trace: Span | undefined): PlanDeps {
  return {
    client: deps.client,
    knowledge: deps.knowledge,
    siteCodes: deps.siteCodes,
    upstream: deps.upstream ?? passthroughAccess.upstream,
    onFallback: deps.onFallback,
    trace,
  };
}

async function readRecord(route: ReadRoute, request: PreparedRequest, deps: PipelineDeps, trace: Span | undefined): Promise<PipelineResult> {
  const { params } = request;
  const id = request.id ?? '';
  const fetched = await fetchRead(route, id, request.token, planDeps(deps, trace));
  let resource = fetched.record;
  let includedResources = fetched.included;
  const upstreamPages = fetched.pages;
  // A record the caller may not see is answered as one that does not exist: nothing is revealed.
  const visible = request.access.visible(route, { matches: resource ? [resource] : [], included: includedResources });
  resource = visible.matches[0];
  includedResources = visible.included;
  // A record of another patient than the one asked for is treated as not there (spec 4.2 `patient`).
  if (!resource || (params.patient !== undefined && patientOf(resource) !== params.patient)) {
    throw new FacadeError('not-found', `${route.upstream.resourceType} ${id}`);
  }
  const found = resource;
  return inChildSpan(trace, 'map', async (span) => {
    if (span?.recording) span.set('facade.records', 1);
    return {
      payload: route.shape.map(found, createMapContext([found, ...includedResources], deps.legacyTime)),
      upstreamPages,
      resourceIds: idsOf([found, ...includedResources]),
    };
  });
}

/**
 * Every record the answer was built from, for the audit line: matches and included records alike,
 * since included ones (the Encounter record's notes, Orders' reports, the Patient's name) show in it.
 */
function idsOf(resources: FhirResource[]): string[] {
  return resources.map((resource) => `${resource.resourceType}/${resource.id ?? ''}`);
}

/**
 * One mapped record and the id its `full_url` names: the record's, or the empty id for the kinds
 * without one (docs/decisions.md, "Bundle"). A DiagnosticReport search entry leaves `id` out of the
 * record but keeps it in `full_url`: the report has one, its by-id read shows it.
 */
function mapEntry(resource: FhirResource, shape: LegacyShape, context: MapContext): MappedEntry {
  return { resourceType: resource.resourceType, id: shape.withoutId ? '' : (resource.id ?? ''), resource: shape.map(resource, context) };
}
