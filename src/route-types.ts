/**
 * The vocabulary of the route table (src/routes.ts): what one legacy operation declares.
 */
import type { LegacyShape } from '../mappers/legacy-shape.ts';
import type { ParamName } from './params.ts';
import type { SiteSelector } from './site-codes.ts';

/**
 * What the caller must present (spec sections 5 and 7):
 * - `optional`: a token is forwarded when given;
 * - `token-required`: no token → 401 (by-id reads, Observation, Procedure, the second CarePlan);
 * - `forbidden-without-token`: no token → 403 (the collections the spec shows 403 for).
 */
export type AuthPolicy = 'optional' | 'token-required' | 'forbidden-without-token';

/** How the mapped records are returned: a Bundle, a bare JSON array, or the one record. */
export type Envelope = 'bundle' | 'array' | 'record';

/** The legacy Bundle `type`; some legacy responses spell it with a space (spec 2.1). */
export type BundleType = 'searchset' | 'search set';

/** The FHIR query one legacy operation becomes. */
export interface UpstreamQuery {
  /** FHIR resource type searched or read. */
  resourceType: string;
  /** Upstream search parameter that `start_date`, `end_date` and `date` compare against. */
  dateParam?: string;
  /**
   * The codes that make a record one of this operation's, e.g. the category that makes an
   * Observation an Assessment: named here, set per site (src/site-codes.ts), always sent.
   */
  select?: SiteSelector;
  /** `_include` values: referenced resources the mapper reads, fetched in the same round trip. */
  include?: readonly string[];
  /** `_revinclude` values: resources pointing at the results that the mapper reads. */
  revinclude?: readonly string[];
}

interface RouteBase {
  /** Stable name used in logs, metrics and tests, e.g. `DiagnosticReport.search`. */
  name: string;
  method: 'GET' | 'POST';
  /** The path as the spec lists it; `:id` marks the record id. */
  path: string;
  summary: string;
  auth: AuthPolicy;
  /** Legacy query parameters this operation takes; others are ignored. */
  params: readonly ParamName[];
  upstream: UpstreamQuery;
  /** The mapper (and schema) of each returned record. */
  shape: LegacyShape;
}

interface SearchRouteBase extends RouteBase {
  kind: 'search';
  /** Included resources that become Bundle entries of their own (Provenance), by resource type. */
  includedEntries?: Readonly<Record<string, LegacyShape>>;
}

/** A search answered as a Bundle, whose `type` spelling each route must state. */
export interface BundleSearchRoute extends SearchRouteBase {
  envelope: 'bundle';
  bundleType: BundleType;
}

/** A search answered as a bare JSON array (Assessments, Orders). */
export interface ArraySearchRoute extends SearchRouteBase {
  envelope: 'array';
}

export type SearchRoute = BundleSearchRoute | ArraySearchRoute;

export interface ReadRoute extends RouteBase {
  kind: 'read';
  envelope: 'record';
}

export type Route = SearchRoute | ReadRoute;
