/**
 * Access-control configuration and SMART scope reading, without servers: service mode needs its
 * keys (every missing one named at once), passthrough takes none of them, and scopes grant exactly
 * what v1 and v2 say.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ScopeGrants } from '../src/access/smart-scopes.ts';
import { parseConfig, type Config } from '../src/config.ts';
import { problemsOf } from './support/config-problems.ts';

describe('access-control configuration', () => {
  it('defaults to passthrough', () => {
    expect(parseConfig({}).UPSTREAM_AUTH_MODE).toBe('passthrough');
  });

  it('names every key service mode misses, with the per-key problems, at once', () => {
    const problems = problemsOf({ UPSTREAM_AUTH_MODE: 'service', CALLER_TOKEN_VALIDATION: 'jwt', CLOCK_SKEW_SECONDS: 'soon' });
    expect(problems.map((problem) => problem.split(':')[0])).toEqual(
      expect.arrayContaining([
        'CLOCK_SKEW_SECONDS',
        'UPSTREAM_TOKEN_URL',
        'UPSTREAM_CLIENT_ID',
        'UPSTREAM_CLIENT_SECRET',
        'JWKS_URL',
        'TOKEN_ISSUER',
        'TOKEN_AUDIENCE',
      ]),
    );
  });

  it('takes exactly one client authentication, and a private key that is one', () => {
    const base = {
      UPSTREAM_AUTH_MODE: 'service',
      UPSTREAM_TOKEN_URL: 'https://as.test/token',
      UPSTREAM_CLIENT_ID: 'facade',
      CALLER_TOKEN_VALIDATION: 'introspection',
      INTROSPECTION_URL: 'https://as.test/introspect',
    };
    expect(problemsOf({ ...base, UPSTREAM_CLIENT_SECRET: 's' })).toEqual([]);
    expect(problemsOf({ ...base, UPSTREAM_CLIENT_SECRET: 's', UPSTREAM_CLIENT_ASSERTION_KEY: '{"kty":"EC","d":"x"}' })).toHaveLength(1);
    expect(problemsOf({ ...base, UPSTREAM_CLIENT_ASSERTION_KEY: '{"kty":"EC","x":"public only"}' })[0]).toMatch(/^UPSTREAM_CLIENT_ASSERTION_KEY/);
    expect(problemsOf({ ...base, UPSTREAM_CLIENT_SECRET: 's', INTROSPECTION_CLIENT_ID: 'only-the-id' })[0]).toMatch(/^INTROSPECTION_CLIENT_SECRET/);
  });

  it('refuses service-mode keys in passthrough mode rather than ignore them', () => {
    expect(problemsOf({ CALLER_TOKEN_VALIDATION: 'jwt' })).toEqual(['CALLER_TOKEN_VALIDATION: only used with UPSTREAM_AUTH_MODE=service']);
    // Service mode's settings with defaults are taken in either mode, as they always were.
    expect(problemsOf({ UPSTREAM_AUTH_MODE: 'passthrough', UPSTREAM_TOKEN_URL: 'https://as.test/token', PATIENT_CLAIM: 'pid' })).toEqual([
      'UPSTREAM_TOKEN_URL: only used with UPSTREAM_AUTH_MODE=service',
    ]);
  });

  it('parses service mode to its variant, which readers narrow by mode and caller validation', () => {
    const config = parseConfig({
      UPSTREAM_AUTH_MODE: 'service',
      UPSTREAM_TOKEN_URL: 'https://as.test/token',
      UPSTREAM_CLIENT_ID: 'facade',
      UPSTREAM_CLIENT_SECRET: 's',
      CALLER_TOKEN_VALIDATION: 'jwt',
      JWKS_URL: 'https://as.test/jwks',
      TOKEN_ISSUER: 'https://as.test',
      TOKEN_AUDIENCE: 'https://facade.test',
    });
    if (config.UPSTREAM_AUTH_MODE !== 'service' || config.CALLER_TOKEN_VALIDATION !== 'jwt')
      throw new Error(`parsed to the ${config.UPSTREAM_AUTH_MODE} variant`);
    expect([config.UPSTREAM_TOKEN_URL, config.UPSTREAM_CLIENT_SECRET, config.JWKS_URL, config.TOKEN_AUDIENCE]).toEqual([
      'https://as.test/token',
      's',
      'https://as.test/jwks',
      'https://facade.test',
    ]);
    // What the mode requires is there once narrowed, with no check left to the reader.
    expectTypeOf(config.UPSTREAM_TOKEN_URL).toEqualTypeOf<string>();
    expectTypeOf(config.TOKEN_AUDIENCE).toEqualTypeOf<string>();
    expectTypeOf<Extract<Config, { UPSTREAM_AUTH_MODE: 'passthrough' }>['UPSTREAM_TOKEN_URL']>().toEqualTypeOf<undefined>();
  });

  it('names problems of the credential and of caller validation together, even with no way of validation chosen', () => {
    const problems = problemsOf({
      UPSTREAM_AUTH_MODE: 'service',
      UPSTREAM_TOKEN_URL: 'https://as.test/token',
      UPSTREAM_CLIENT_ID: 'facade',
      UPSTREAM_CLIENT_SECRET: 's',
      UPSTREAM_CLIENT_ASSERTION_KEY: 'not a key',
      JWKS_URL: 'nope',
    });
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
      'CALLER_TOKEN_VALIDATION',
      'JWKS_URL',
      'UPSTREAM_CLIENT_ASSERTION_KEY',
      'UPSTREAM_CLIENT_SECRET',
    ]);
    expect(problems).toContain('CALLER_TOKEN_VALIDATION: required in service mode');
  });
});

describe('SMART scopes', () => {
  it('v1 .read and .* grant reading and searching; wildcards cover every type', () => {
    const grants = new ScopeGrants(['patient/Observation.read', 'patient/*.*']);
    expect(grants.allows('Observation', 'search') && grants.allows('Condition', 'read')).toBe(true);
  });

  it('v2 r reads by id, s searches', () => {
    const grants = new ScopeGrants(['patient/Observation.rs', 'patient/Condition.r', 'patient/Procedure.s']);
    expect([grants.allows('Observation', 'read'), grants.allows('Observation', 'search')]).toEqual([true, true]);
    expect([grants.allows('Condition', 'read'), grants.allows('Condition', 'search')]).toEqual([true, false]);
    expect([grants.allows('Procedure', 'read'), grants.allows('Procedure', 'search')]).toEqual([false, true]);
  });

  it('grants nothing for user/, system/, write-only or granular scopes', () => {
    const grants = new ScopeGrants(['user/*.read', 'system/*.rs', 'patient/Observation.write', 'patient/Observation.rs?category=laboratory', 'launch/patient']);
    expect(grants.allowsAny('Observation')).toBe(false);
  });
});

describe('authorization-server URLs', () => {
  it('must be https except on loopback', () => {
    const service = {
      UPSTREAM_AUTH_MODE: 'service',
      UPSTREAM_CLIENT_ID: 'facade',
      UPSTREAM_CLIENT_SECRET: 's',
      CALLER_TOKEN_VALIDATION: 'introspection',
      INTROSPECTION_URL: 'https://as.test/introspect',
    };
    expect(() => parseConfig({ ...service, UPSTREAM_TOKEN_URL: 'http://as.example.org/token' })).toThrow(/UPSTREAM_TOKEN_URL: must be https/);
    expect(() => parseConfig({ ...service, UPSTREAM_TOKEN_URL: 'http://127.0.0.1:9000/token' })).not.toThrow();
    expect(() => parseConfig({ ...service, UPSTREAM_TOKEN_URL: 'https://as.test/token', INTROSPECTION_URL: 'http://as.example.org/i' })).toThrow(
      /INTROSPECTION_URL/,
    );
  });
});
