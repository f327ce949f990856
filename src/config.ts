/**
 * The service's configuration: one valibot schema, the only reader of the environment, varied by
 * access mode (src/config/access-mode.ts) so the parsed `Config` is a union its readers narrow. A
 * bad value stops the start with every bad key named.
 */
import * as v from 'valibot';
import { accessSettings } from './config/access-mode.ts';
import { baseSettings } from './config/base-settings.ts';
import { settingNames } from './config/setting-groups.ts';

const ConfigSchema = v.intersect([baseSettings, accessSettings]);

export type Config = v.InferOutput<typeof ConfigSchema>;

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
    // Without one secret for all, every instance would name and seal entries its own way: none would ever hit.
    ...(present.CACHE_REDIS_URL !== undefined && present.CACHE_SECRET === undefined
      ? ['CACHE_SECRET: required with CACHE_REDIS_URL, the same on every instance']
      : []),
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
  const known = new Set<string>(settingNames(ConfigSchema));
  const prefixes = new Set([...known].filter((key) => key.includes('_') && !key.startsWith('OTEL_')).map((key) => `${key.split('_')[0]}_`));
  return Object.keys(env)
    .filter((name) => env[name] !== undefined && !known.has(name) && [...prefixes].some((prefix) => name.startsWith(prefix)))
    .sort();
}
