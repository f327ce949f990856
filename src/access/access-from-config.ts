/**
 * The access mode the configuration asks for, built from its keys. The configuration is a union
 * varied by mode (src/config/access-mode.ts): narrowed here, service mode has its credential and
 * its caller validation, or the service would not have started.
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

type ServiceModeConfig = Extract<Config, { UPSTREAM_AUTH_MODE: 'service' }>;

export function accessControlFor(config: Config, parts: AccessParts): AccessControl {
  if (config.UPSTREAM_AUTH_MODE === 'passthrough') return passthroughAccess;
  const credential = new ServiceCredential({
    tokenUrl: config.UPSTREAM_TOKEN_URL,
    clientId: config.UPSTREAM_CLIENT_ID,
    authentication: clientAuthenticationFor(config),
    scope: config.UPSTREAM_SCOPE,
    fetch: parts.fetch,
  });
  return serviceAccess({ validateCaller: callerValidatorFor(config, parts), credential });
}

function clientAuthenticationFor(config: ServiceModeConfig): ClientAuthentication {
  if (config.UPSTREAM_CLIENT_ASSERTION_KEY !== undefined) return { kind: 'assertion', privateJwk: JSON.parse(config.UPSTREAM_CLIENT_ASSERTION_KEY) as JWK };
  return { kind: 'secret', secret: config.UPSTREAM_CLIENT_SECRET, method: config.UPSTREAM_CLIENT_AUTH_METHOD };
}

function callerValidatorFor(config: ServiceModeConfig, parts: AccessParts): CallerValidator {
  if (config.CALLER_TOKEN_VALIDATION === 'jwt') {
    return jwtValidator({
      jwksUrl: config.JWKS_URL,
      issuer: config.TOKEN_ISSUER,
      audience: config.TOKEN_AUDIENCE,
      clockSkewSeconds: config.CLOCK_SKEW_SECONDS,
      patientClaim: config.PATIENT_CLAIM,
    });
  }
  return introspectionValidator({
    introspectionUrl: config.INTROSPECTION_URL,
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
