/**
 * The service's configuration: one valibot schema, the only reader of the environment. A bad
 * value stops the start with every bad key named.
 */
import * as v from 'valibot';
import { MIN_CACHE_SECRET_BYTES, cacheSecretBytes } from './cache/cache-secret.ts';
import { DEFAULT_SITE_CODES } from './site-codes.ts';
import { PROFILE_NAMES } from './upstream/profiles.ts';

const integer = (fallback: number, min: number, max: number) => {
  const message = `must be a whole number from ${min} to ${max}`;
  return v.optional(
    v.pipe(v.string(), v.regex(/^\d+$/, message), v.transform(Number), v.minValue(min, message), v.maxValue(max, message)),
    String(fallback),
  );
};

/** The URL a text names, or undefined: valibot runs every check of a pipe, so none may throw on a bad URL. */
function urlOf(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

const httpUrl = v.pipe(v.string(), v.url('must be an absolute URL'), v.regex(/^https?:/, 'must be http(s)'));
/**
 * The token, introspection and key endpoints decide who may read what: over plain HTTP anyone on the
 * path could answer for them, so they must be https, except on loopback (local set-ups and tests).
 */
const authServerUrl = v.pipe(
  httpUrl,
  v.check((url) => {
    const parsed = urlOf(url);
    return parsed === undefined || parsed.protocol === 'https:' || /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(parsed.hostname);
  }, 'must be https (http only on loopback)'),
);
/** A time zone the runtime's Intl knows (IANA names on Node and Workers alike). */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const nonEmpty = v.pipe(v.string(), v.minLength(1, 'must not be empty'));

/** A private JWK (JSON) for the SMART Backend Services client assertion: RSA or EC, with its private part. */
const privateJwk = v.pipe(
  v.string(),
  v.check((text) => {
    try {
      const jwk = JSON.parse(text) as { kty?: unknown; d?: unknown; alg?: unknown };
      return (jwk.kty === 'RSA' || jwk.kty === 'EC') && typeof jwk.d === 'string' && (jwk.alg === undefined || jwk.alg === 'RS384' || jwk.alg === 'ES384');
    } catch {
      return false;
    }
  }, 'must be a private RSA or EC JWK as JSON (alg RS384 or ES384 when given)'),
);

/**
 * One FHIR token search value: `code`, `system|code` or `|code` (no system). FHIR's escapes (`\,`,
 * `\|`) and spaces are refused rather than guessed at: a code containing them is a typo far more
 * often than a real code, and sent upstream it would select other records without a word.
 */
const TOKEN = /^(?:[^\s|,\\]*\|)?[^\s|,\\]+$/;
/** Codes selecting an operation's records: FHIR tokens, comma-separated meaning OR (as in a FHIR search). */
const tokenList = (fallback: string) =>
  v.optional(v.pipe(v.string(), v.check((text) => text.split(',').every((token) => TOKEN.test(token)), 'must be FHIR tokens (code or system|code), comma-separated, without spaces')), fallback);

/** An include value `Type:param[:Target]`, `*` for all, `!Type:param` an exception to `*`; or `none`. */
const INCLUDE_ITEM = /^(\*|!?[A-Z][A-Za-z]+:[a-z][A-Za-z0-9-]*(:[A-Z][A-Za-z]+)?)$/;
const includeList = v.optional(
  v.pipe(
    v.string(),
    v.check((text) => text === 'none' || text.split(',').every((item) => INCLUDE_ITEM.test(item)), 'must be none or a comma-separated list of Type:param, * (all) and !Type:param (all but)'),
    v.check((text) => !text.includes('!') || text.split(',').includes('*'), 'an exception (!Type:param) needs * in the same list'),
  ),
);
/** Search parameters as `Type:param` (the server's own `_` parameters are always taken). */
const PARAM_ITEM = /^[A-Z][A-Za-z]+:[a-z][A-Za-z0-9-]*$/;
const paramList = v.optional(
  v.pipe(v.string(), v.check((text) => text === 'none' || text.split(',').every((item) => PARAM_ITEM.test(item)), 'must be none or a comma-separated list of Type:param')),
);

/** `OTEL_EXPORTER_OTLP_HEADERS`: `name=value` pairs, comma-separated, values percent-encoded (OpenTelemetry's form). */
const otlpHeaderList = v.optional(
  v.pipe(
    v.string(),
    v.check(
      (text) =>
        text
          .split(',')
          .filter((pair) => pair.trim() !== '')
          .every((pair) => {
            const at = pair.indexOf('=');
            if (at === -1 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(pair.slice(0, at).trim())) return false;
            try {
              return !/[\r\n\0]/.test(decodeURIComponent(pair.slice(at + 1).trim()));
            } catch {
              return false;
            }
          }),
      'must be name=value pairs, comma-separated, values percent-encoded',
    ),
  ),
);

/** More processes than this is a typo (one per core; the largest machines have a few hundred). */
const MAX_WORKERS = 1024;

const ConfigSchema = v.object({
  PORT: integer(8080, 0, 65535),
  HOST: v.optional(v.string(), '0.0.0.0'),
  /** Port of the embedded FHIR server, started when no UPSTREAM_URL is set. */
  EMBEDDED_FHIR_PORT: integer(8081, 0, 65535),
  /** Base URL of the upstream FHIR R4 server, e.g. https://fhir.example.org/fhir. */
  UPSTREAM_URL: v.optional(
    v.pipe(
      v.string(),
      v.url('must be an absolute URL'),
      v.regex(/^https?:/, 'must be http(s)'),
      // The base is joined with `/<Type>?…`; credentials go in headers, never in the URL.
      v.check((url) => {
        const parsed = urlOf(url);
        return parsed === undefined || (parsed.search === '' && parsed.hash === '' && parsed.username === '' && parsed.password === '');
      }, 'must have no query, fragment, user or password'),
    ),
  ),
  /** Deadline of one legacy request's upstream work, every page included. */
  UPSTREAM_TIMEOUT_MS: integer(15_000, 100, 600_000),
  /** Most upstream pages one legacy search may read before it fails with 502. */
  UPSTREAM_MAX_PAGES: integer(100, 1, 10_000),
  /** `_count` asked of the upstream on every search; unset: 1000, or the profile's page cap if lower (src/upstream/profiles.ts). */
  UPSTREAM_PAGE_SIZE: v.optional(v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(1), v.maxValue(10_000))),
  // What the upstream does not do, beyond its CapabilityStatement (docs/decisions.md, "Site codes and upstream profiles").
  /** A named profile of src/upstream/profiles.ts; unset: none, the statement and observation alone. */
  UPSTREAM_PROFILE: v.optional(v.picklist(PROFILE_NAMES, `must be one of ${PROFILE_NAMES.join(', ')}`)),
  /** `_include` values the upstream does not carry out; replaces the profile's list. */
  UPSTREAM_UNSUPPORTED_INCLUDES: includeList,
  /** `_revinclude` values the upstream does not carry out; replaces the profile's list. */
  UPSTREAM_UNSUPPORTED_REVINCLUDES: includeList,
  /** Search parameters (`Type:param`) the upstream lacks; replaces the profile's list. */
  UPSTREAM_UNSUPPORTED_PARAMS: paramList,
  // Site codes (src/site-codes.ts): which records an operation selects, where sites code them differently.
  /** The Observation category (or categories) that makes an Observation an Assessment. */
  ASSESSMENT_CATEGORY: tokenList(DEFAULT_SITE_CODES['assessment-category']),
  /** The Goal category (or categories) of social-determinants goals (SDOHGoal). */
  SDOH_GOAL_CATEGORY: tokenList(DEFAULT_SITE_CODES['sdoh-goal-category']),
  /** The old system's time zone (IANA name): its timestamps are written in it (docs/decisions.md, "Timestamps"). */
  LEGACY_TIME_ZONE: v.optional(v.pipe(v.string(), v.check(isTimeZone, 'must be an IANA time zone name, e.g. America/New_York')), 'UTC'),
  /** Largest upstream answer accepted, in bytes (502 beyond). */
  UPSTREAM_MAX_BODY_BYTES: integer(64 * 1024 * 1024, 1024, 2 ** 31),
  // Upstream resilience (docs/decisions.md, "Upstream resilience").
  /** Attempts per upstream request while it is throttled (429, 503 with a hint), the first included. */
  UPSTREAM_MAX_ATTEMPTS: integer(4, 1, 10),
  /** Upstream requests in flight at once, in all (on Node also the connections per origin). */
  UPSTREAM_MAX_IN_FLIGHT: integer(64, 1, 10_000),
  /** Upstream requests in flight at once for one FHIR resource type: what one hanging type can hold. */
  UPSTREAM_MAX_IN_FLIGHT_PER_TYPE: integer(16, 1, 10_000),
  /** Longest wait for room among those, before a 503. */
  UPSTREAM_QUEUE_WAIT_MS: integer(1000, 0, 60_000),
  /** Failures in a row (no answer, 5xx) that open the circuit to the upstream. */
  UPSTREAM_BREAKER_FAILURES: integer(5, 1, 10_000),
  /** How long an open circuit refuses requests before one probe is let through. */
  UPSTREAM_BREAKER_COOLDOWN_MS: integer(5000, 100, 600_000),
  /** The response cache: on unless set to `false`. */
  CACHE_ENABLED: v.optional(v.picklist(['true', 'false'], 'must be true or false'), 'true'),
  /** Bytes of response bodies the cache may hold (default sized for a small instance). */
  CACHE_MAX_BYTES: integer(64 * 1024 * 1024, 0, 2 ** 40),
  /** How long a cached response is fresh. */
  CACHE_TTL_MS: integer(30_000, 0, 86_400_000),
  /** How long after that a stale response may be served while one refresh runs (0: never). */
  CACHE_STALE_MS: integer(30_000, 0, 86_400_000),
  // The shared cache tier (docs/decisions.md, "Shared cache tier").
  /** Redis or Valkey behind the in-process cache, shared by every process and instance (Node). */
  CACHE_REDIS_URL: v.optional(v.pipe(v.string(), v.regex(/^rediss?:\/\/[^/]/, 'must be a redis:// or rediss:// URL'))),
  /** The secret naming cached callers and entries and keying their encryption: the same on every instance. */
  CACHE_SECRET: v.optional(v.pipe(v.string(), v.check((text) => cacheSecretBytes(text).length >= MIN_CACHE_SECRET_BYTES, `must be at least ${MIN_CACHE_SECRET_BYTES} bytes (openssl rand -base64 32)`))),
  /** Longest wait for the shared tier on one request: past it, the tier is skipped. */
  CACHE_L2_TIMEOUT_MS: integer(50, 1, 10_000),
  /** How long a stop (SIGTERM, SIGINT) lets requests in progress finish before it cuts them. */
  SHUTDOWN_TIMEOUT_MS: integer(10_000, 0, 600_000),
  /** Longest request URL accepted (414 beyond). */
  MAX_URL_LENGTH: integer(8192, 256, 1_000_000),
  /** Node processes serving the port: `auto` one per available core, 1 a single process (docs/decisions.md, "Every core"). */
  WORKERS: v.optional(
    v.pipe(
      v.string(),
      v.check((text) => text === 'auto' || (/^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= MAX_WORKERS), `must be auto or a whole number from 1 to ${MAX_WORKERS}`),
      v.transform((text): 'auto' | number => (text === 'auto' ? 'auto' : Number(text))),
    ),
    '1',
  ),

  // Tracing (docs/decisions.md, "Tracing"): OpenTelemetry's own variables, with their meanings.
  // No endpoint: nothing is recorded or exported.
  /** Base URL of an OTLP/HTTP collector; spans go to `<endpoint>/v1/traces`. */
  OTEL_EXPORTER_OTLP_ENDPOINT: v.optional(httpUrl),
  /** The traces URL itself, used as it is (wins over the endpoint above). */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: v.optional(httpUrl),
  /** Headers of every export (a collector's API key): never logged. */
  OTEL_EXPORTER_OTLP_HEADERS: otlpHeaderList,
  /** Longest an export may take, in ms (its spans are dropped beyond). */
  OTEL_EXPORTER_OTLP_TIMEOUT: integer(10_000, 1, 600_000),
  OTEL_SERVICE_NAME: v.optional(nonEmpty, 'clinical-records-facade'),
  /** `true` turns tracing off whatever else is set. */
  OTEL_SDK_DISABLED: v.optional(v.picklist(['true', 'false'], 'must be true or false'), 'false'),
  /** Longest a span waits for its batch to fill before it is sent (Node; on Workers each request sends its own). */
  OTEL_BSP_SCHEDULE_DELAY: integer(5000, 1, 600_000),
  /** Most spans waiting to be sent; more are dropped and counted in /metrics. */
  OTEL_BSP_MAX_QUEUE_SIZE: integer(2048, 1, 1_000_000),
  /** Most spans in one export. */
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: integer(512, 1, 1_000_000),

  // Access control (docs/security.md). `passthrough`: the caller's token goes upstream and the
  // upstream judges it. `service`: the service uses its own credential upstream and enforces access.
  UPSTREAM_AUTH_MODE: v.optional(v.picklist(['passthrough', 'service'], 'must be passthrough or service'), 'passthrough'),
  /** Token endpoint the service's own upstream credential comes from (client credentials grant). */
  UPSTREAM_TOKEN_URL: v.optional(authServerUrl),
  UPSTREAM_CLIENT_ID: v.optional(nonEmpty),
  /** A client secret (sent as UPSTREAM_CLIENT_AUTH_METHOD says), or else… */
  UPSTREAM_CLIENT_SECRET: v.optional(nonEmpty),
  UPSTREAM_CLIENT_AUTH_METHOD: v.optional(v.picklist(['client_secret_basic', 'client_secret_post'], 'must be client_secret_basic or client_secret_post'), 'client_secret_basic'),
  /** …a private JWK signing a client assertion (SMART Backend Services, RS384 or ES384). */
  UPSTREAM_CLIENT_ASSERTION_KEY: v.optional(privateJwk),
  UPSTREAM_SCOPE: v.optional(nonEmpty),
  /** How a caller's token is checked in service mode. */
  CALLER_TOKEN_VALIDATION: v.optional(v.picklist(['introspection', 'jwt'], 'must be introspection or jwt')),
  INTROSPECTION_URL: v.optional(authServerUrl),
  INTROSPECTION_CLIENT_ID: v.optional(nonEmpty),
  INTROSPECTION_CLIENT_SECRET: v.optional(nonEmpty),
  /** How long an introspection answer is reused (never past the token's `exp`). */
  INTROSPECTION_CACHE_MS: integer(30_000, 0, 3_600_000),
  JWKS_URL: v.optional(authServerUrl),
  TOKEN_ISSUER: v.optional(nonEmpty),
  TOKEN_AUDIENCE: v.optional(nonEmpty),
  CLOCK_SKEW_SECONDS: integer(60, 0, 600),
  /** Claim naming the token's patient (SMART's `patient` launch context by default). */
  PATIENT_CLAIM: v.optional(nonEmpty, 'patient'),
});

/** Keys that mean something only in service mode: set in passthrough mode they are a mistake, never ignored. */
const SERVICE_ONLY_KEYS = [
  'UPSTREAM_TOKEN_URL', 'UPSTREAM_CLIENT_ID', 'UPSTREAM_CLIENT_SECRET', 'UPSTREAM_CLIENT_ASSERTION_KEY', 'UPSTREAM_SCOPE',
  'CALLER_TOKEN_VALIDATION', 'INTROSPECTION_URL', 'INTROSPECTION_CLIENT_ID', 'INTROSPECTION_CLIENT_SECRET', 'JWKS_URL', 'TOKEN_ISSUER', 'TOKEN_AUDIENCE',
] as const;

/**
 * Checks across keys, on the raw values so they are listed together with the per-key problems:
 * service mode needs its credential and its caller validation; passthrough mode takes none of them
 * (a hospital that set them but not the mode would believe access is enforced when it is not).
 */
function crossKeyProblems(env: Record<string, string>): string[] {
  const problems: string[] = [];
  const missing = (key: string, why: string) => {
    if (env[key] === undefined) problems.push(`${key}: required ${why}`);
  };
  if (env.UPSTREAM_AUTH_MODE !== 'service') {
    for (const key of SERVICE_ONLY_KEYS) {
      if (env[key] !== undefined) problems.push(`${key}: only used with UPSTREAM_AUTH_MODE=service`);
    }
    return problems;
  }
  missing('UPSTREAM_TOKEN_URL', 'in service mode');
  missing('UPSTREAM_CLIENT_ID', 'in service mode');
  const secret = env.UPSTREAM_CLIENT_SECRET !== undefined;
  const assertion = env.UPSTREAM_CLIENT_ASSERTION_KEY !== undefined;
  if (secret === assertion) problems.push('UPSTREAM_CLIENT_SECRET: set exactly one of UPSTREAM_CLIENT_SECRET and UPSTREAM_CLIENT_ASSERTION_KEY in service mode');
  missing('CALLER_TOKEN_VALIDATION', 'in service mode');
  if (env.CALLER_TOKEN_VALIDATION === 'introspection') {
    missing('INTROSPECTION_URL', 'with CALLER_TOKEN_VALIDATION=introspection');
    if ((env.INTROSPECTION_CLIENT_ID === undefined) !== (env.INTROSPECTION_CLIENT_SECRET === undefined)) {
      problems.push('INTROSPECTION_CLIENT_SECRET: INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET go together');
    }
  }
  if (env.CALLER_TOKEN_VALIDATION === 'jwt') {
    for (const key of ['JWKS_URL', 'TOKEN_ISSUER', 'TOKEN_AUDIENCE']) missing(key, 'with CALLER_TOKEN_VALIDATION=jwt');
  }
  return problems;
}

export type Config = v.InferOutput<typeof ConfigSchema>;

/** A per-type share larger than the whole would let one hanging type take every connection again. */
function resilienceProblems(config: Config | undefined): string[] {
  if (config === undefined || config.UPSTREAM_MAX_IN_FLIGHT_PER_TYPE <= config.UPSTREAM_MAX_IN_FLIGHT) return [];
  return ['UPSTREAM_MAX_IN_FLIGHT_PER_TYPE: must not exceed UPSTREAM_MAX_IN_FLIGHT'];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    // One line, so a start that fails says why in one line of the log.
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** The upstream URL where no embedded upstream can run (Workers): its absence is a configuration error. */
export function requireUpstream(config: Config): string {
  if (config.UPSTREAM_URL === undefined) throw new ConfigError(['UPSTREAM_URL: required here (no embedded upstream on this runtime)']);
  return config.UPSTREAM_URL;
}

/** The first problem of each key: the others follow from it (not a URL, hence not http(s) either). */
function firstProblemPerKey(issues: readonly v.BaseIssue<unknown>[]): string[] {
  const byKey = new Map<string, string>();
  for (const issue of issues) {
    const key = v.getDotPath(issue) ?? '(config)';
    if (!byKey.has(key)) byKey.set(key, issue.message);
  }
  return [...byKey].map(([key, message]) => `${key}: ${message}`);
}

/** Parses configuration from an environment-like record (process.env, Worker bindings). */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = v.safeParse(ConfigSchema, present);
  const problems = [
    ...(result.success ? [] : firstProblemPerKey(result.issues)),
    ...crossKeyProblems(present as Record<string, string>),
    ...resilienceProblems(result.success ? result.output : undefined),
    // Without one secret for all, every instance would name and seal entries its own way: none would ever hit.
    ...(present.CACHE_REDIS_URL !== undefined && present.CACHE_SECRET === undefined ? ['CACHE_SECRET: required with CACHE_REDIS_URL, the same on every instance'] : []),
  ];
  if (result.success && problems.length === 0) return result.output;
  throw new ConfigError(problems);
}

/**
 * Variables that look like settings of this service but are none (`CACHE_TTL` for `CACHE_TTL_MS`):
 * a name starting like a known setting (`UPSTREAM_`, `CACHE_`, `TOKEN_`, …). Named in a warning at
 * start, since a misspelt setting would otherwise leave its default in force without a word.
 * `OTEL_` is left out: OpenTelemetry's variables are many and read by its own conventions.
 */
export function unknownSettings(env: Record<string, string | undefined>): string[] {
  const known = new Set(Object.keys(ConfigSchema.entries));
  const prefixes = new Set([...known].filter((key) => key.includes('_') && !key.startsWith('OTEL_')).map((key) => `${key.split('_')[0]}_`));
  return Object.keys(env)
    .filter((name) => env[name] !== undefined && !known.has(name) && [...prefixes].some((prefix) => name.startsWith(prefix)))
    .sort();
}
