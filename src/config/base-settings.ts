/**
 * The settings of every mode: the upstream, its limits and resilience, site codes, the caches,
 * the process and tracing. Access control's settings, which vary by mode, are in access-mode.ts.
 */
import * as v from 'valibot';
import { MIN_CACHE_SECRET_BYTES, cacheSecretBytes } from '../cache/cache-secret.ts';
import { DEFAULT_SITE_CODES } from '../site-codes.ts';
import { PROFILE_NAMES } from '../upstream/profiles.ts';
import { httpUrl, includeList, integer, isTimeZone, nonEmpty, otlpHeaderList, paramList, tokenList, urlOf } from './setting-values.ts';

/** More processes than this is a typo (one per core; the largest machines have a few hundred). */
const MAX_WORKERS = 1024;

const baseValues = v.object({
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
  CACHE_SECRET: v.optional(
    v.pipe(
      v.string(),
      v.check((text) => cacheSecretBytes(text).length >= MIN_CACHE_SECRET_BYTES, `must be at least ${MIN_CACHE_SECRET_BYTES} bytes (openssl rand -base64 32)`),
    ),
  ),
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
      v.check(
        (text) => text === 'auto' || (/^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= MAX_WORKERS),
        `must be auto or a whole number from 1 to ${MAX_WORKERS}`,
      ),
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
});

export const baseSettings = v.pipe(
  baseValues,
  // Checked as soon as both keys are valid, so the problem is listed with any others.
  // A per-type share larger than the whole would let one hanging type take every connection again.
  v.forward(
    v.partialCheck(
      [['UPSTREAM_MAX_IN_FLIGHT'], ['UPSTREAM_MAX_IN_FLIGHT_PER_TYPE']],
      (input) => input.UPSTREAM_MAX_IN_FLIGHT_PER_TYPE <= input.UPSTREAM_MAX_IN_FLIGHT,
      'must not exceed UPSTREAM_MAX_IN_FLIGHT',
    ),
    ['UPSTREAM_MAX_IN_FLIGHT_PER_TYPE'],
  ),
);
