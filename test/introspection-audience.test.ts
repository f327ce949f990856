/**
 * Introspection accepts only answers for this service: the configured audience, the configured
 * issuer, an access token. A canned introspection endpoint (an injected fetch) gives each answer.
 */
import { describe, expect, it } from 'vitest';
import { introspectionValidator } from '../src/access/caller-validation.ts';
import { webHashing } from '../src/ports/hashing.ts';
import { FacadeError } from '../src/errors.ts';

const AUDIENCE = 'https://facade.example.org';
const ISSUER = 'https://as.example.org';
const good = { active: true, aud: AUDIENCE, iss: ISSUER, token_type: 'access_token', sub: 'user-a', patient: 'A', scope: 'patient/*.read' };

function validatorAnswering(answer: Record<string, unknown>) {
  const fetchStub = (async () => new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } })) as typeof fetch;
  return introspectionValidator({
    introspectionUrl: 'https://as.example.org/introspect',
    cacheMs: 0,
    patientClaim: 'patient',
    audience: AUDIENCE,
    issuer: ISSUER,
    hashing: webHashing(),
    fetch: fetchStub,
  });
}

describe('introspection', () => {
  it('accepts an active access token issued for this service', async () => {
    await expect(validatorAnswering(good)('token-value')).resolves.toMatchObject({ subject: 'user-a', patient: 'A' });
    await expect(validatorAnswering({ ...good, aud: ['other', AUDIENCE] })('token-value')).resolves.toMatchObject({ patient: 'A' });
  });

  it.each([
    ['another audience', { ...good, aud: 'https://other-api.example.org' }],
    ['no audience', { ...good, aud: undefined }],
    ['another issuer', { ...good, iss: 'https://evil.example.org' }],
    ['a refresh token', { ...good, token_type: 'refresh_token' }],
    ['an inactive token', { ...good, active: false }],
  ])('refuses %s with 401', async (_, answer) => {
    const refused = await validatorAnswering(answer)('token-value').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(FacadeError);
    expect((refused as FacadeError).status).toBe(401);
  });
});
