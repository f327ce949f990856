/**
 * What a personality is: a set of documented behaviours of a real FHIR server (../shared/UPSTREAMS.md)
 * that the personality proxy reproduces in front of the embedded server. Each field switches one
 * behaviour on; a personality composes several where a real server has several.
 */

/** How a server writes and reads back its `next` links (UPSTREAMS.md, "next-link token" row). */
export type PagingStyleName =
  /** `[base]/Type?…&_offset=N` on the server's own base: the embedded server's own style. */
  | 'offset'
  /** Firely: `[base]/Type?…&_count=C&_skip=N` (§9). */
  | 'skip'
  /** Azure: the original query plus an opaque `ct=` token of several KB (§3). */
  | 'continuation-token'
  /** HAPI: `[base]?_getpages=<uuid>&_getpagesoffset=N&_count=C&_bundletype=searchset`, a cached search (§1). */
  | 'getpages'
  /** Aidbox: relative `/Type?…&_count=C&_page=N` (§11). */
  | 'relative-page';

/** When a paging token (a `_getpages` id, a `ct` token) stops being valid. */
export interface TokenExpiry {
  /** Valid this long after it was issued (HAPI keeps cached searches 60 min; Firely `PagingLifetime`). */
  ttlMs?: number;
  /** Each page link answers once; asked again, it is expired. */
  singleUse?: boolean;
  /**
   * The first paging session of each distinct search is already gone when its first `next` link
   * is followed; later sessions of the same search live. Deterministic "expired between pages",
   * so a client that restarts the search once gets the whole answer.
   */
  firstSessionOfEachSearchExpired?: boolean;
}

/** Which `_include` / `_revinclude` values the server honours (Cerner: `_revinclude=Provenance:target` only, §7). */
export interface IncludeSupport {
  /** `_include` / `_revinclude` values honoured (`_revinclude=Provenance:target` as `revinclude:Provenance:target`). */
  allowed: readonly string[];
  /** What an unsupported one gets: silently dropped, or a 400 OperationOutcome. */
  otherwise: 'ignore' | 'reject';
  /**
   * Whether the CapabilityStatement lists the allowed ones (`searchInclude` / `searchRevInclude`).
   * Not listing them makes the facade find out by asking, so the proxy sees what it does with them.
   */
  declared: boolean;
}

/** Rate limiting (UPSTREAMS.md §3 Azure ThrottlingMiddleware, §2 Medplum, personality 12). */
export interface Throttle {
  status: 429 | 503;
  /** Of every `every` searches and reads, the last `burst` are refused (metadata is never counted). */
  every: number;
  burst: number;
  headers: Readonly<Record<string, string>>;
  /** Azure's `throttled` OperationOutcome, or an empty body. */
  body: 'outcome' | 'empty';
}

export interface Personality {
  name: string;
  /** The behaviours it reproduces, each with its source section in ../shared/UPSTREAMS.md. */
  reproduces: string;
  /** Where the proxy serves the FHIR base; `''` for the server root (Aidbox). Default `/fhir`. */
  basePath?: string;
  /**
   * The base the server believes it has and writes into links, `fullUrl`s and its
   * CapabilityStatement, when it differs from where the facade reaches it (a reverse proxy
   * under another scheme, host, port or path prefix). Default: the proxy's own base.
   */
  advertisedBase?: string;
  paging?: PagingStyleName;
  expiry?: TokenExpiry;
  /** Largest page; a larger `_count` is silently lowered (Firely 50, HAPI 200, HealthLake 100). */
  pageCap?: number;
  /** `Bundle.total` left out of searchsets (Azure, Medplum, Firely, Cerner by default). */
  omitTotal?: boolean;
  includes?: IncludeSupport;
  /**
   * Search parameters the server does not have, by type (Cerner: Goal has no `category`, §7;
   * HealthLake: no `Specimen-patient`, §5), and what it does with one: 400 (HAPI, Medplum, IBM), or
   * drop it with a `not-supported` warning unless `Prefer: handling=strict` (Azure, Google).
   */
  unknownParams?: { missing: Readonly<Record<string, readonly string[]>>; handling: 'strict' | 'lenient' };
  /**
   * OperationOutcome entries (`search.mode: outcome`) first in searchsets: an information issue on
   * every page (Azure, §3), or Epic's warning 4101 "no results" on empty searches and an
   * information issue on the others (§6).
   */
  outcomes?: 'information-every-page' | 'epic-no-results';
  /** Medplum: a bare id matches on `patient`/`subject` only; on other reference params it matches nothing (§2). */
  typedReferencesOnly?: boolean;
  /** gzip answers when the request's `Accept-Encoding` lists gzip (HAPI `respondGzip`, Cerner; §1, §7). */
  gzip?: boolean;
  throttle?: Throttle;
  /**
   * Facade settings this personality is run with, e.g. a smaller `UPSTREAM_PAGE_SIZE` (a site
   * setting) so these patients' searches take several pages in the server's paging style.
   */
  facadeEnv?: Readonly<Record<string, string>>;
  /** Proxy counters that must be above zero after a matrix run, or the personality proved nothing. */
  exercised: readonly (keyof ProxyStats)[];
}

/** What the proxy did, so a test can tell that a behaviour really happened. */
export interface ProxyStats {
  requests: number;
  /** Requests answered from a `next` link of this personality's own paging style. */
  pagesFollowed: number;
  countsLowered: number;
  totalsRemoved: number;
  includesDropped: number;
  includesRefused: number;
  unknownParamsDropped: number;
  unknownParamsRefused: number;
  /** Searches of a type that lacks a parameter (Goal, Specimen) that came without it: the facade put the filter another way. */
  searchesWithoutMissingParams: number;
  outcomeEntries: number;
  noResultsWarnings: number;
  bareReferencesUnmatched: number;
  gzipped: number;
  throttled: number;
  expiredPages: number;
  badTokens: number;
}

export function emptyStats(): ProxyStats {
  return {
    requests: 0,
    pagesFollowed: 0,
    countsLowered: 0,
    totalsRemoved: 0,
    includesDropped: 0,
    includesRefused: 0,
    unknownParamsDropped: 0,
    unknownParamsRefused: 0,
    searchesWithoutMissingParams: 0,
    outcomeEntries: 0,
    noResultsWarnings: 0,
    bareReferencesUnmatched: 0,
    gzipped: 0,
    throttled: 0,
    expiredPages: 0,
    badTokens: 0,
  };
}
