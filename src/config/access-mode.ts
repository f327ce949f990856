/**
 * Access control's settings, varied by UPSTREAM_AUTH_MODE (docs/security.md). `passthrough`: the
 * caller's token goes upstream and the upstream judges it. `service`: the service uses its own
 * credential upstream and enforces access. What each mode requires is said here once; the parsed
 * configuration is a union its readers narrow (src/access/access-from-config.ts).
 */
import * as v from 'valibot';
import { refused, required, settingNames, settingsObject } from './setting-groups.ts';
import { authServerUrl, integer, nonEmpty, privateJwk } from './setting-values.ts';

const MODE = 'must be passthrough or service';
const PASSTHROUGH = { UPSTREAM_AUTH_MODE: v.optional(v.literal('passthrough', MODE), 'passthrough') };
const SERVICE = { UPSTREAM_AUTH_MODE: v.literal('service', MODE) };
const IN_SERVICE_MODE = 'required in service mode';

/** Service mode's keys and their values, each checked however the others are set. */
const serviceValues = settingsObject({
  ...SERVICE,
  /** Token endpoint the service's own upstream credential comes from (client credentials grant). */
  UPSTREAM_TOKEN_URL: required(authServerUrl, IN_SERVICE_MODE),
  UPSTREAM_CLIENT_ID: required(nonEmpty, IN_SERVICE_MODE),
  UPSTREAM_SCOPE: v.optional(nonEmpty),
  /** A client secret (sent as UPSTREAM_CLIENT_AUTH_METHOD says), or else… */
  UPSTREAM_CLIENT_SECRET: v.optional(nonEmpty),
  /** …a private JWK signing a client assertion (SMART Backend Services, RS384 or ES384). */
  UPSTREAM_CLIENT_ASSERTION_KEY: v.optional(privateJwk),
  INTROSPECTION_URL: v.optional(authServerUrl),
  INTROSPECTION_CLIENT_ID: v.optional(nonEmpty),
  INTROSPECTION_CLIENT_SECRET: v.optional(nonEmpty),
  JWKS_URL: v.optional(authServerUrl),
  TOKEN_ISSUER: v.optional(nonEmpty),
  TOKEN_AUDIENCE: v.optional(nonEmpty),
});

/** Set: the requirements below ask only whether a key is set, its value being checked in serviceValues. */
const given = v.string();

const EXACTLY_ONE = 'set exactly one of UPSTREAM_CLIENT_SECRET and UPSTREAM_CLIENT_ASSERTION_KEY in service mode';
/** How the service proves itself at the token endpoint: a signed assertion or a client secret, exactly one. */
const clientCredential = v.variant('UPSTREAM_CLIENT_ASSERTION_KEY', [
  settingsObject({ ...SERVICE, UPSTREAM_CLIENT_ASSERTION_KEY: given, UPSTREAM_CLIENT_SECRET: v.optional(v.never(EXACTLY_ONE)) }),
  settingsObject({ ...SERVICE, UPSTREAM_CLIENT_ASSERTION_KEY: v.optional(v.never(EXACTLY_ONE)), UPSTREAM_CLIENT_SECRET: required(given, EXACTLY_ONE) }),
]);

const VALIDATION = 'must be introspection or jwt';
const WITH_INTROSPECTION = 'required with CALLER_TOKEN_VALIDATION=introspection';
const TOGETHER = 'INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET go together';
const WITH_JWT = 'required with CALLER_TOKEN_VALIDATION=jwt';
const introspection = { ...SERVICE, CALLER_TOKEN_VALIDATION: v.literal('introspection', VALIDATION), INTROSPECTION_URL: required(given, WITH_INTROSPECTION) };
/**
 * How a caller's token is checked: introspection (the service authenticated at the endpoint, or
 * not) or a JWT checked against JWKS. TOKEN_AUDIENCE and TOKEN_ISSUER, required for a JWT, are
 * checked in introspection's answers when set. The other way's keys are taken though unused, as
 * they always were.
 */
const callerValidation = v.variant('CALLER_TOKEN_VALIDATION', [
  v.variant('INTROSPECTION_CLIENT_ID', [
    settingsObject({ ...introspection, INTROSPECTION_CLIENT_ID: given, INTROSPECTION_CLIENT_SECRET: required(given, TOGETHER) }),
    settingsObject({ ...introspection, INTROSPECTION_CLIENT_ID: v.optional(v.never(TOGETHER)), INTROSPECTION_CLIENT_SECRET: v.optional(v.never(TOGETHER)) }),
  ]),
  settingsObject({
    ...SERVICE,
    CALLER_TOKEN_VALIDATION: v.literal('jwt', VALIDATION),
    JWKS_URL: required(given, WITH_JWT),
    TOKEN_ISSUER: required(given, WITH_JWT),
    TOKEN_AUDIENCE: required(given, WITH_JWT),
  }),
]);

/**
 * Passthrough mode refuses every key of service mode: a site that set them but not the mode
 * would believe access is enforced when it is not.
 */
const serviceKeys = settingNames(serviceValues, clientCredential, callerValidation).filter((name) => name !== 'UPSTREAM_AUTH_MODE');
const passthrough = settingsObject({ ...PASSTHROUGH, ...refused(serviceKeys, 'only used with UPSTREAM_AUTH_MODE=service') });

/**
 * Service mode's settings with defaults: taken in either mode, as they always were (set in
 * passthrough mode they change nothing, and claim nothing is enforced).
 */
const serviceDefaults = v.object({
  UPSTREAM_CLIENT_AUTH_METHOD: v.optional(
    v.picklist(['client_secret_basic', 'client_secret_post'], 'must be client_secret_basic or client_secret_post'),
    'client_secret_basic',
  ),
  /** How long an introspection answer is reused (never past the token's `exp`). */
  INTROSPECTION_CACHE_MS: integer(30_000, 0, 3_600_000),
  CLOCK_SKEW_SECONDS: integer(60, 0, 600),
  /** Claim naming the token's patient (SMART's `patient` launch context by default). */
  PATIENT_CLAIM: v.optional(nonEmpty, 'patient'),
});

/** Why a variant below matched no option: its mode, or in service mode the way callers are checked. */
function unmatched(issue: v.VariantIssue): string {
  if (issue.path?.[0]?.key !== 'CALLER_TOKEN_VALIDATION') return MODE;
  return issue.input === undefined ? IN_SERVICE_MODE : VALIDATION;
}

/**
 * Parts intersected, each a variant on the mode, rather than one variant over every combination:
 * where one part matches none of its options (no CALLER_TOKEN_VALIDATION), the others still name
 * their problems, all at once. Values are checked in one part, what each mode requires in the rest.
 */
export const accessSettings = v.intersect([
  serviceDefaults,
  v.variant('UPSTREAM_AUTH_MODE', [passthrough, serviceValues], unmatched),
  v.variant('UPSTREAM_AUTH_MODE', [settingsObject(PASSTHROUGH), clientCredential], unmatched),
  v.variant('UPSTREAM_AUTH_MODE', [settingsObject(PASSTHROUGH), callerValidation], unmatched),
]);
