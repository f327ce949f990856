/**
 * Who a caller is, from its access token, in `service` mode: by RFC 7662 introspection at the
 * authorization server, or by verifying a JWT access token locally against the server's JWKS.
 * Either way the answer is the token's subject, its patient and its SMART scopes; a token that is
 * not good (invalid, expired, forged, for another audience, revoked) is a 401. An authorization
 * server that cannot answer is a 502: a caller is never let in because a check could not run.
 */
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Hashing } from '../ports/hashing.ts';
import { FacadeError } from '../errors.ts';
import { networkFailureKind } from '../upstream/failure-kind.ts';
import { basicAuthorization, postForm } from './auth-server-post.ts';
import { ScopeGrants, scopesOf } from './smart-scopes.ts';

export interface Caller {
  /** The token's `sub`, for the audit log (never the token). */
  subject: string | undefined;
  /** The patient the token acts for, from the configured claim; undefined when it names none. */
  patient: string | undefined;
  scopes: ScopeGrants;
}

/** Checks a caller's token; throws a FacadeError (401, or 502 when the check cannot run). */
export type CallerValidator = (token: string) => Promise<Caller>;

/** One FHIR id (R4 `id` datatype), bare or as `Patient/<id>`. */
const PATIENT_CLAIM = /^(?:Patient\/)?([A-Za-z0-9\-.]{1,64})$/;

/**
 * The patient a token's claim names: absent, null or empty names none; anything else must be exactly
 * one FHIR id, or the token is invalid. A list such as `355,85` would otherwise go upstream as
 * `patient=Patient/355,85`, which a FHIR server reads as "355 or 85".
 */
function patientFrom(claim: unknown): string | undefined {
  // An empty claim is how some authorization servers write "no patient" (practitioner, system tokens).
  if (claim === undefined || claim === null || claim === '') return undefined;
  const match = typeof claim === 'string' ? PATIENT_CLAIM.exec(claim) : null;
  if (!match) throw new FacadeError('invalid-token', 'the patient claim does not name one patient');
  return match[1];
}

function callerFrom(claims: Record<string, unknown>, patientClaim: string): Caller {
  return {
    subject: typeof claims.sub === 'string' ? claims.sub : undefined,
    // A patient claim may be a bare id or a reference (`Patient/123`); the bare id is compared.
    patient: patientFrom(claims[patientClaim]),
    scopes: new ScopeGrants(scopesOf(claims)),
  };
}

export interface JwtValidatorOptions {
  jwksUrl: string;
  issuer: string;
  audience: string;
  clockSkewSeconds: number;
  patientClaim: string;
}

/** JOSE failures that mean "this token is not good" (401); any other failure is the check failing (502). */
const TOKEN_FAULTS = new Set([
  'ERR_JWT_EXPIRED',
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JWT_INVALID',
  'ERR_JWS_INVALID',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
]);

const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** Local verification: signature by a key of the JWKS, issuer, audience, exp and nbf within the skew. */
export function jwtValidator(options: JwtValidatorOptions): CallerValidator {
  // jose fetches the JWKS on first use, keeps it, and refetches on an unknown `kid` (at most every 30 s).
  const keys = createRemoteJWKSet(new URL(options.jwksUrl));
  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: options.issuer,
        audience: options.audience,
        clockTolerance: options.clockSkewSeconds,
        // Asymmetric algorithms only: a JWKS holds public keys, and an HMAC "signed" with one is a forgery.
        algorithms: ASYMMETRIC_ALGORITHMS,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JOSEError && TOKEN_FAULTS.has(error.code)) throw new FacadeError('invalid-token', undefined, { cause: error });
      throw new FacadeError('auth-server-error', 'the signing keys could not be read', { cause: error, reason: jwksFailureKind(error) });
    }
    return callerFrom(payload, options.patientClaim);
  };
}

export interface IntrospectionValidatorOptions {
  introspectionUrl: string;
  clientId?: string;
  clientSecret?: string;
  /** How long an active answer is reused; never past the token's `exp`. 0: never reused. */
  cacheMs: number;
  patientClaim: string;
  /** Keys the answer cache by a keyed hash of the token: no token is held in memory longer than the request. */
  hashing: Hashing;
  /** When set, the answer's `aud` must name it: a token issued for another API is refused. */
  audience?: string;
  /** When set, an answer that names an issuer must name this one. */
  issuer?: string;
  fetch?: typeof fetch;
  now?: () => number;
}

/**
 * Whether an active introspection answer is for this service: the configured audience, the
 * configured issuer when the answer names one, and an access token (not a refresh token).
 */
function isForThisService(claims: Record<string, unknown>, options: IntrospectionValidatorOptions): boolean {
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (options.audience !== undefined && !audiences.includes(options.audience)) return false;
  if (options.issuer !== undefined && claims.iss !== undefined && claims.iss !== options.issuer) return false;
  const type = typeof claims.token_type === 'string' ? claims.token_type.toLowerCase() : undefined;
  return type === undefined || type === 'access_token' || type === 'bearer';
}

/** Most introspection answers kept at once. */
const MAX_CACHED_ANSWERS = 10_000;

/** RFC 7662 introspection, active answers cached briefly so a burst of requests costs one round trip. */
export function introspectionValidator(options: IntrospectionValidatorOptions): CallerValidator {
  const now = options.now ?? Date.now;
  const answers = new LRUCache<string, { caller: Caller; until: number }>({ max: MAX_CACHED_ANSWERS });
  const headers: Record<string, string> = {};
  if (options.clientId !== undefined && options.clientSecret !== undefined) {
    headers.authorization = basicAuthorization(options.clientId, options.clientSecret);
  }
  return async (token) => {
    const key = await options.hashing.callerOf(token);
    const cached = answers.get(key);
    if (cached && now() < cached.until) return cached.caller;
    const form = new URLSearchParams({ token, token_type_hint: 'access_token' });
    const answer = await postForm(options.introspectionUrl, form, headers, options.fetch, 'auth-server-error');
    if (answer.status !== 200)
      throw new FacadeError('auth-server-error', `the introspection endpoint answered HTTP ${answer.status}`, { reason: `http-${answer.status}` });
    const claims = answer.body;
    const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
    // `active` alone decides (RFC 7662 2.2); an `exp` already past is refused too, whatever the server says.
    if (claims.active !== true || (exp !== undefined && exp <= now())) throw new FacadeError('invalid-token');
    if (!isForThisService(claims, options)) throw new FacadeError('invalid-token');
    const caller = callerFrom(claims, options.patientClaim);
    const until = Math.min(now() + options.cacheMs, exp ?? Number.POSITIVE_INFINITY);
    if (options.cacheMs > 0) answers.set(key, { caller, until });
    return caller;
  };
}

/** Why the JWKS could not be read: a network failure's kind, `timeout`, or `jwks-unusable` (an answer that is no key set). */
function jwksFailureKind(error: unknown): string {
  if (error instanceof joseErrors.JWKSTimeout) return 'timeout';
  const kind = networkFailureKind(error);
  return kind === 'network' && error instanceof joseErrors.JOSEError ? 'jwks-unusable' : kind;
}
