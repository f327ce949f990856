/**
 * The service's configuration: one valibot schema, the only reader of the environment. A bad
 * value stops the start with every bad key named.
 */
import * as v from 'valibot';

const integer = (fallback: number, min: number, max: number) =>
  v.optional(
    v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(min), v.maxValue(max)),
    String(fallback),
  );

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
        const parsed = new URL(url);
        return parsed.search === '' && parsed.hash === '' && parsed.username === '' && parsed.password === '';
      }, 'must have no query, fragment, user or password'),
    ),
  ),
  /** Deadline of one legacy request's upstream work, every page included. */
  UPSTREAM_TIMEOUT_MS: integer(15_000, 100, 600_000),
  /** Most upstream pages one legacy search may read before it fails with 502. */
  UPSTREAM_MAX_PAGES: integer(100, 1, 10_000),
  /** `_count` asked of the upstream on every search. */
  UPSTREAM_PAGE_SIZE: integer(1000, 1, 10_000),
  /** Largest upstream answer accepted, in bytes (502 beyond). */
  UPSTREAM_MAX_BODY_BYTES: integer(64 * 1024 * 1024, 1024, 2 ** 31),
  /** The response cache: on unless set to `false`. */
  CACHE_ENABLED: v.optional(v.picklist(['true', 'false'], 'must be true or false'), 'true'),
  /** Bytes of response bodies the cache may hold (default sized for a small instance). */
  CACHE_MAX_BYTES: integer(64 * 1024 * 1024, 0, 2 ** 40),
  /** How long a cached response is fresh. */
  CACHE_TTL_MS: integer(30_000, 0, 86_400_000),
  /** How long after that a stale response may be served while one refresh runs (0: never). */
  CACHE_STALE_MS: integer(30_000, 0, 86_400_000),
  /** Longest request URL accepted (414 beyond). */
  MAX_URL_LENGTH: integer(8192, 256, 1_000_000),
});

export type Config = v.InferOutput<typeof ConfigSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** The upstream URL where no embedded upstream can run (Workers): its absence is a configuration error. */
export function requireUpstream(config: Config): string {
  if (config.UPSTREAM_URL === undefined) throw new ConfigError(['UPSTREAM_URL: required here (no embedded upstream on this runtime)']);
  return config.UPSTREAM_URL;
}

/** Parses configuration from an environment-like record (process.env, Worker bindings). */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = v.safeParse(ConfigSchema, present);
  if (result.success) return result.output;
  throw new ConfigError(result.issues.map((issue) => `${v.getDotPath(issue) ?? '(config)'}: ${issue.message}`));
}
