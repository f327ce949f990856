/**
 * The personalities the matrix runs the facade against, one documented behaviour each (composed
 * where a real server has several), with their sources in ../shared/UPSTREAMS.md. All are relative
 * to the embedded server: lenient to nothing (400 on unknown parameters), `_offset` links on its
 * own base, `total` always, `_count` up to 1000, every include.
 */
import type { IncludeSupport, Personality } from './personality.ts';

/**
 * The facade asks for `_count=20` (a site setting, `UPSTREAM_PAGE_SIZE`) under the paging-style
 * personalities: each of these servers honours it, and most searches of the generated patients then
 * take several pages, so every route walks the style's links (Observation searches take ~24).
 */
const SMALL_PAGES = { UPSTREAM_PAGE_SIZE: '20' } as const;

/** Cerner: `_revinclude` only `Provenance:target`; `_include` only on Slot (§7). */
const CERNER_INCLUDES = ['revinclude:Provenance:target'] as const;

/** Parameters the facade sends that some servers lack: Goal `category` (Cerner §7), Specimen `patient` (HealthLake §5). */
const MISSING_PARAMS = { Goal: ['category'], Specimen: ['patient'] } as const;
/** Every date parameter the service searches with (docs/decisions.md, "Which date each date filter compares"). */
const MISSING_DATES = {
  AllergyIntolerance: ['date'],
  CarePlan: ['date'],
  CareTeam: ['date'],
  Condition: ['onset-date'],
  DiagnosticReport: ['date'],
  Goal: ['start-date'],
  Immunization: ['date'],
  Observation: ['date'],
  Procedure: ['date'],
  ServiceRequest: ['authored'],
  Specimen: ['collected'],
} as const;

const cernerIncludes = (otherwise: IncludeSupport['otherwise'], declared = false): IncludeSupport => ({ allowed: CERNER_INCLUDES, otherwise, declared });

export const PERSONALITIES: readonly Personality[] = [
  {
    name: 'plain-proxy',
    reproduces: 'Nothing: the control. Forwards as it came, next links on the proxy base; proves the harness alone changes no answer.',
    exercised: ['requests'],
  },
  {
    name: 'firely-cap-50',
    reproduces: '`_count` above 50 silently lowered to 50 (Firely MaxCount, §9), paged by its own `_skip` links, no `total` (DefaultTotal none, §9).',
    pageCap: 50,
    paging: 'skip',
    omitTotal: true,
    exercised: ['countsLowered', 'pagesFollowed', 'totalsRemoved'],
  },
  {
    name: 'azure-ct',
    reproduces:
      'Next link = the original query + `ct=` token of ~2.3 KB base64 with `+ / =`, kept server-side and required byte for byte (unknown 400, malformed 500); only self + next links; no `total` (§3).',
    paging: 'continuation-token',
    omitTotal: true,
    facadeEnv: SMALL_PAGES,
    exercised: ['pagesFollowed', 'totalsRemoved'],
  },
  {
    name: 'hapi-getpages',
    reproduces:
      'Next link = `[base]?_getpages=<uuid>&_getpagesoffset=N&_count=M&_bundletype=searchset`, a server-side cached search (unknown id → 410 HAPI-0417); `_count` capped at 200; `total` absent (§1).',
    paging: 'getpages',
    pageCap: 200,
    omitTotal: true,
    facadeEnv: SMALL_PAGES,
    exercised: ['pagesFollowed'],
  },
  {
    name: 'hapi-behind-proxy',
    reproduces:
      'HAPI `_getpages` links naming the server as it sees itself, `http://internal-fhir:8080/fhir`, while the facade reaches it at `http://127.0.0.1:PORT/some/prefix/fhir` (§1, hapifhir/hapi-fhir#2509; personality 2).',
    basePath: '/some/prefix/fhir',
    advertisedBase: 'http://internal-fhir:8080/fhir',
    paging: 'getpages',
    pageCap: 200,
    facadeEnv: SMALL_PAGES,
    exercised: ['pagesFollowed'],
  },
  {
    name: 'internal-host-links',
    reproduces:
      'Absolute `_offset` links on another scheme, host, port and path prefix (`https://internal-fhir:8443/fhir`): link origin from the request unless forwarded headers are trusted (Azure UrlResolver §3, Firely §9, Smile §8).',
    basePath: '/some/prefix/fhir',
    advertisedBase: 'https://internal-fhir:8443/fhir',
    facadeEnv: SMALL_PAGES,
    exercised: ['pagesFollowed'],
  },
  {
    name: 'aidbox-relative',
    reproduces: 'RELATIVE next links `/Observation?…&_count=20&_page=2` on a server whose FHIR base is its root; `total` always (§11).',
    basePath: '',
    paging: 'relative-page',
    facadeEnv: SMALL_PAGES,
    exercised: ['pagesFollowed'],
  },
  {
    name: 'cerner-includes-ignored',
    reproduces:
      'No `_include` / `_revinclude` but `_revinclude=Provenance:target`, the others silently ignored, its CapabilityStatement silent about them; no `total` (§7; unsupported-include handling not found, variant 1).',
    includes: cernerIncludes('ignore'),
    omitTotal: true,
    exercised: ['includesDropped'],
  },
  {
    name: 'cerner-includes-declared',
    reproduces: 'As cerner-includes-ignored, but the CapabilityStatement lists the one revinclude it allows, so the facade never sends the others (§7).',
    includes: cernerIncludes('reject', true),
    omitTotal: true,
    exercised: ['totalsRemoved'],
  },
  {
    name: 'cerner-includes-refused',
    reproduces: 'As cerner-includes-ignored, but an unsupported include is a 400 (§7 variant 2; HAPI/Medplum refuse unknown includes with 400, §1, §2).',
    includes: cernerIncludes('reject'),
    omitTotal: true,
    exercised: ['includesRefused'],
  },
  {
    name: 'azure-outcome-first',
    reproduces: 'An OperationOutcome entry (`search.mode: outcome`, severity information) first in every searchset page (Azure BundleFactory, §3).',
    outcomes: 'information-every-page',
    exercised: ['outcomeEntries'],
  },
  {
    name: 'epic-no-results',
    reproduces:
      'Empty searches answered 200, `total: 0`, with Epic\'s warning 4101 "no results" as an outcome entry; other pages carry an information outcome entry (§6).',
    outcomes: 'epic-no-results',
    exercised: ['noResultsWarnings', 'outcomeEntries'],
  },
  {
    name: 'strict-unknown-params',
    reproduces:
      'Unknown search parameter → 400 HAPI-0524 whatever `Prefer` says (HAPI §1, Medplum §2, IBM §10), on a server without Goal `category` (Cerner §7) and Specimen `patient` (HealthLake §5).',
    unknownParams: { missing: MISSING_PARAMS, handling: 'strict' },
    exercised: ['searchesWithoutMissingParams'],
  },
  {
    name: 'date-params-missing',
    reproduces:
      'Composition, no single documented server: no date search parameter on any type the service searches (Oracle Health has only a few, §7; Goal only target-date), unknown ones refused with 400 (§1, §2, §10).',
    unknownParams: { missing: MISSING_DATES, handling: 'strict' },
    exercised: ['searchesWithoutMissingParams'],
  },
  {
    name: 'lenient-unknown-params',
    reproduces:
      'Unknown search parameter dropped with a `not-supported` warning in the outcome entry, 400 only under `Prefer: handling=strict` (Azure §3, Google §4), same missing parameters.',
    unknownParams: { missing: MISSING_PARAMS, handling: 'lenient' },
    exercised: ['searchesWithoutMissingParams'],
  },
  {
    name: 'medplum-typed-references',
    reproduces:
      'A bare id matches on `patient` / `subject` only; `encounter=<bare id>` and other reference parameters match nothing (medplum/medplum#9254, §2); no `total` (§2).',
    typedReferencesOnly: true,
    omitTotal: true,
    exercised: ['totalsRemoved'],
  },
  {
    name: 'typed-references-without-includes',
    reproduces:
      "Composition, no single documented server: Medplum's typed-reference rule (§2) on a server without includes (Cerner §7), so the include fallbacks' reverse searches (`DocumentReference?encounter=…`) must use the typed form.",
    typedReferencesOnly: true,
    includes: cernerIncludes('ignore'),
    exercised: ['includesDropped'],
  },
  {
    name: 'gzip-when-asked',
    reproduces: 'gzip-encoded answers when the request lists gzip in `Accept-Encoding` (HAPI RestfulServer.respondGzip §1, Cerner §7).',
    gzip: true,
    exercised: ['gzipped'],
  },
  {
    name: 'throttle-retry-after',
    // Bursts are rare here: a facade that honours `Retry-After: 1` waits a second for each refusal.
    reproduces: '429 bursts (2 of every 100 requests) with `Retry-After: 1` (seconds) and a `throttled` OperationOutcome (Azure ThrottlingMiddleware §3).',
    throttle: { status: 429, every: 100, burst: 2, headers: { 'retry-after': '1' }, body: 'outcome' },
    exercised: ['throttled'],
  },
  {
    name: 'throttle-ms-header',
    reproduces: '429 bursts (3 of every 20) with only `x-ms-retry-after-ms: 50` (Azure §3).',
    throttle: { status: 429, every: 20, burst: 3, headers: { 'x-ms-retry-after-ms': '50' }, body: 'outcome' },
    exercised: ['throttled'],
  },
  {
    name: 'throttle-no-header',
    reproduces: '429 bursts (2 of every 20) with no header and an empty body (personality 12: "no header at all; … empty").',
    throttle: { status: 429, every: 20, burst: 2, headers: {}, body: 'empty' },
    exercised: ['throttled'],
  },
  {
    name: 'hapi-expired-session',
    reproduces:
      'HAPI `_getpages` paging where the first cached search of each query has expired when its next link is followed: 410 HAPI-0417 (§1; Firely 410 §9; personality 14). A second session of the same query lives.',
    paging: 'getpages',
    pageCap: 200,
    expiry: { firstSessionOfEachSearchExpired: true },
    facadeEnv: SMALL_PAGES,
    exercised: ['expiredPages'],
  },
];
