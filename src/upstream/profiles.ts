/**
 * Named upstream profiles (`UPSTREAM_PROFILE`): what a FHIR server's CapabilityStatement does not
 * say and the service can use, as data, each entry citing its section of ../shared/UPSTREAMS.md.
 * A profile only states limits: includes and revincludes the server does not carry out, search
 * parameters it lacks for our queries, and its page cap. Everything else is left to `/metadata` and
 * to what searches show (src/upstream/capabilities.ts decides, in one place). "Not found" in the
 * research leaves an item out: a profile never guesses a limit it has no source for.
 */
import type { Config } from '../config.ts';
import type { StatedLayers, StatedLimits } from './capabilities.ts';

export interface UpstreamProfile extends StatedLimits {
  /**
   * The largest `_count` the server takes for any type this service searches: the service asks no
   * more (servers mostly lower a larger one silently, but some refuse it, and a cap is not a hint).
   */
  pageCap?: number;
  /** Where each item comes from: the UPSTREAMS.md section and the sources it names. */
  source: string;
}

export const UPSTREAM_PROFILES = {
  hapi: { pageCap: 200, source: 'UPSTREAMS.md §1 HAPI: starter max page size 200 (ResponseBundleBuilder.java); includes and parameters per spec' },
  medplum: { pageCap: 1000, source: 'UPSTREAMS.md §2 Medplum: max `_count` 1000 (search.ts applyCountAndOffsetLimits); includes supported' },
  azure: { pageCap: 1000, source: 'UPSTREAMS.md §3 Azure/microsoft fhir-server: max `_count` 1000 (SearchOptionsFactory.cs; earlier builds 400 above it)' },
  google: { pageCap: 1000, source: 'UPSTREAMS.md §4 Google Cloud Healthcare: `_count` up to 1000 (fhirStores.fhir.search)' },
  healthlake: {
    pageCap: 100,
    unsupportedParams: ['Specimen:patient', 'Provenance:patient', 'Communication:patient', 'List:patient', 'Appointment:patient'],
    // An include goes by its search parameter: without Specimen `patient` there is no `_include=Specimen:patient` (inferred).
    unsupportedIncludes: ['Specimen:patient'],
    source:
      'UPSTREAMS.md §5 HealthLake: `_count` max 100 (devguide/search-healthlake.html); unsupported patient params (devguide/supported-search-parameters.html)',
  },
  epic: { source: 'UPSTREAMS.md §6 Epic: include support and `_count` cap not found; left to /metadata and observation' },
  'oracle-health': {
    pageCap: 100,
    unsupportedIncludes: ['*'],
    unsupportedRevincludes: ['*', '!Provenance:target'],
    unsupportedParams: ['Goal:category'],
    source:
      'UPSTREAMS.md §7 Oracle Health/Cerner R4: `_revinclude` only Provenance:target, `_include` only on Slot (observation.md, encounter.md, slot.md); Goal has no category (goal.md); DiagnosticReport max 100, Observation 200 (diagnostic-report.md, observation.md)',
  },
  smile: { pageCap: 200, source: 'UPSTREAMS.md §8 Smile CDR: HAPI JPA storage, so §1 defaults (inferred)' },
  firely: { pageCap: 50, source: 'UPSTREAMS.md §9 Firely Server: MaxCount 50 (appsettings_reference.rst)' },
  ibm: { pageCap: 1000, source: 'UPSTREAMS.md §10 IBM FHIR/LinuxForHealth: maxPageSize 1000 (Conformance.md)' },
  aidbox: { source: 'UPSTREAMS.md §11 Aidbox: max `_count` and include limits not found' },
} as const satisfies Record<string, UpstreamProfile>;

/** Profile names a site may set; `cerner` is Oracle Health's former name, the same profile. */
export const PROFILE_ALIASES = { cerner: 'oracle-health' } as const;
export const PROFILE_NAMES = [...Object.keys(UPSTREAM_PROFILES), ...Object.keys(PROFILE_ALIASES)] as [string, ...string[]];

/** What the service asks the upstream for when no site sets `UPSTREAM_PAGE_SIZE`: large pages keep round trips few. */
export const DEFAULT_PAGE_SIZE = 1000;

export function profileNamed(name: string): UpstreamProfile | undefined {
  const resolved = Object.hasOwn(PROFILE_ALIASES, name) ? PROFILE_ALIASES[name as keyof typeof PROFILE_ALIASES] : name;
  return Object.hasOwn(UPSTREAM_PROFILES, resolved) ? UPSTREAM_PROFILES[resolved as keyof typeof UPSTREAM_PROFILES] : undefined;
}

/** What the configuration says of the upstream: the stated limits, each from the site or else the profile, and the `_count` asked. */
export interface UpstreamSetup {
  stated: StatedLayers;
  pageSize: number;
}

type SetupKeys =
  | 'UPSTREAM_PROFILE'
  | 'UPSTREAM_UNSUPPORTED_INCLUDES'
  | 'UPSTREAM_UNSUPPORTED_REVINCLUDES'
  | 'UPSTREAM_UNSUPPORTED_PARAMS'
  | 'UPSTREAM_PAGE_SIZE';

/**
 * A site's key replaces the profile's item as a whole (`none` empties it). The site's items sit
 * above the CapabilityStatement (the site knows its server; statements overstate), the profile's
 * below it (the profile fills in what the statement leaves unsaid).
 */
export function upstreamSetupFor(config: Pick<Config, SetupKeys>): UpstreamSetup {
  const profile: UpstreamProfile = config.UPSTREAM_PROFILE === undefined ? { source: '' } : (profileNamed(config.UPSTREAM_PROFILE) ?? { source: '' });
  const siteItems: [keyof StatedLimits, string | undefined][] = [
    ['unsupportedIncludes', config.UPSTREAM_UNSUPPORTED_INCLUDES],
    ['unsupportedRevincludes', config.UPSTREAM_UNSUPPORTED_REVINCLUDES],
    ['unsupportedParams', config.UPSTREAM_UNSUPPORTED_PARAMS],
  ];
  const site: { -readonly [K in keyof StatedLimits]: StatedLimits[K] } = {};
  const fromProfile: { -readonly [K in keyof StatedLimits]: StatedLimits[K] } = {};
  for (const [item, value] of siteItems) {
    if (value !== undefined) site[item] = value === 'none' ? [] : value.split(',');
    else if (profile[item] !== undefined) fromProfile[item] = profile[item];
  }
  const pageSize = config.UPSTREAM_PAGE_SIZE ?? Math.min(DEFAULT_PAGE_SIZE, profile.pageCap ?? DEFAULT_PAGE_SIZE);
  return { stated: { site, profile: fromProfile }, pageSize };
}
