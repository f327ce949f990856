/**
 * Schemas of single setting values (numbers, URLs, FHIR tokens, lists), each failing with a message
 * a site can act on. The settings that use them are in base-settings.ts and access-mode.ts.
 */
import * as v from 'valibot';

export const integer = (fallback: number, min: number, max: number) => {
  const message = `must be a whole number from ${min} to ${max}`;
  return v.optional(v.pipe(v.string(), v.regex(/^\d+$/, message), v.transform(Number), v.minValue(min, message), v.maxValue(max, message)), String(fallback));
};

/** The URL a text names, or undefined: valibot runs every check of a pipe, so none may throw on a bad URL. */
export function urlOf(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

export const httpUrl = v.pipe(v.string(), v.url('must be an absolute URL'), v.regex(/^https?:/, 'must be http(s)'));

/**
 * The token, introspection and key endpoints decide who may read what: over plain HTTP anyone on the
 * path could answer for them, so they must be https, except on loopback (local set-ups and tests).
 */
export const authServerUrl = v.pipe(
  httpUrl,
  v.check((url) => {
    const parsed = urlOf(url);
    return parsed === undefined || parsed.protocol === 'https:' || /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(parsed.hostname);
  }, 'must be https (http only on loopback)'),
);

/** A time zone the runtime's Intl knows (IANA names on Node and Workers alike). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const nonEmpty = v.pipe(v.string(), v.minLength(1, 'must not be empty'));

/** A private JWK (JSON) for the SMART Backend Services client assertion: RSA or EC, with its private part. */
export const privateJwk = v.pipe(
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
export const tokenList = (fallback: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.check((text) => text.split(',').every((token) => TOKEN.test(token)), 'must be FHIR tokens (code or system|code), comma-separated, without spaces'),
    ),
    fallback,
  );

/** An include value `Type:param[:Target]`, `*` for all, `!Type:param` an exception to `*`; or `none`. */
const INCLUDE_ITEM = /^(\*|!?[A-Z][A-Za-z]+:[a-z][A-Za-z0-9-]*(:[A-Z][A-Za-z]+)?)$/;
export const includeList = v.optional(
  v.pipe(
    v.string(),
    v.check(
      (text) => text === 'none' || text.split(',').every((item) => INCLUDE_ITEM.test(item)),
      'must be none or a comma-separated list of Type:param, * (all) and !Type:param (all but)',
    ),
    v.check((text) => !text.includes('!') || text.split(',').includes('*'), 'an exception (!Type:param) needs * in the same list'),
  ),
);
/** Search parameters as `Type:param` (the server's own `_` parameters are always taken). */
const PARAM_ITEM = /^[A-Z][A-Za-z]+:[a-z][A-Za-z0-9-]*$/;
export const paramList = v.optional(
  v.pipe(
    v.string(),
    v.check((text) => text === 'none' || text.split(',').every((item) => PARAM_ITEM.test(item)), 'must be none or a comma-separated list of Type:param'),
  ),
);

/** `OTEL_EXPORTER_OTLP_HEADERS`: `name=value` pairs, comma-separated, values percent-encoded (OpenTelemetry's form). */
export const otlpHeaderList = v.optional(
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
