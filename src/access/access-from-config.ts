/**
 * The access mode the configuration asks for, built from its keys (validated in src/config.ts:
 * service mode has its credential and its caller validation, or the service does not start).
 */
import type { JWK } from 'jose';
import type { Hashing } from '../ports/hashing.ts';
import type { Config } from '../config.ts';
import { passthroughAccess, serviceAccess, type AccessControl } from './access-control.ts';
import { introspectionValidator, jwtValidator, type CallerValidator } from './caller-validation.ts';
import { ServiceCredential, type ClientAuthentication } from './service-credential.ts';

export interface AccessParts {
  /** Hashing of tokens, for the keys of the introspection answers. */
  hashing: Hashing;
  /** The `fetch` for the token and introspection endpoints (the platform's by default). */
  fetch?: typeof fetch;
}

export function accessControlFor(config: Config, parts: AccessParts): AccessControl {
  if (config.UPSTREAM_AUTH_MODE === 'passthrough') return passthroughAccess;
  const authentication: ClientAuthentication =
    config.UPSTREAM_CLIENT_ASSERTION_KEY !== undefined
      ? { kind: 'assertion', privateJwk: JSON.parse(config.UPSTREAM_CLIENT_ASSERTION_KEY) as JWK }
      : { kind: 'secret', secret: required(config.UPSTREAM_CLIENT_SECRET), method: config.UPSTREAM_CLIENT_AUTH_METHOD };
  const credential = new ServiceCredential({
    tokenUrl: required(config.UPSTREAM_TOKEN_URL),
    clientId: required(config.UPSTREAM_CLIENT_ID),
    authentication,
    scope: config.UPSTREAM_SCOPE,
    fetch: parts.fetch,
  });
  return serviceAccess({ validateCaller: callerValidatorFor(config, parts), credential });
}

function callerValidatorFor(config: Config, parts: AccessParts): CallerValidator {
  if (config.CALLER_TOKEN_VALIDATION === 'jwt') {
    return jwtValidator({
      jwksUrl: required(config.JWKS_URL),
      issuer: required(config.TOKEN_ISSUER),
      audience: required(config.TOKEN_AUDIENCE),
      clockSkewSeconds: config.CLOCK_SKEW_SECONDS,
      patientClaim: config.PATIENT_CLAIM,
    });
  }
  return introspectionValidator({
    introspectionUrl: required(config.INTROSPECTION_URL),
    clientId: config.INTROSPECTION_CLIENT_ID,
    clientSecret: config.INTROSPECTION_CLIENT_SECRET,
    cacheMs: config.INTROSPECTION_CACHE_MS,
    patientClaim: config.PATIENT_CLAIM,
    audience: config.TOKEN_AUDIENCE,
    issuer: config.TOKEN_ISSUER,
    hashing: parts.hashing,
    fetch: parts.fetch,
  });
}

/** A key the configuration check guarantees in service mode. */
function required(value: string | undefined): string {
  if (value === undefined) throw new Error('service mode configuration passed validation incomplete');
  return value;
}
