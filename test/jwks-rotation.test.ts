/**
 * JWT caller tokens across a signing-key rotation: the authorization server (oidc-provider) starts
 * signing with a new key and publishes it next to the old one; the service, holding the JWKS it
 * fetched earlier, fetches it again on the new `kid` and accepts the token. A `kid` that is in no
 * JWKS is 401, and made-up kids do not make the service fetch the JWKS on every request: jose
 * refetches at most once per 30 s (its cooldown), so the tests move the clock (`Date` only) past it.
 */
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { serviceModeEnv, startAuthorizationServer, type AuthorizationServer, type PatientApp } from './support/authorization-server.ts';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';
import { expectErrorCode } from './support/outcome-code.ts';

const appA: PatientApp = { clientId: 'app-a', secret: 'secret-a-0123456789', patient: '7', scope: 'patient/*.read' };
const OBSERVATION = { resourceType: 'Observation', id: 'o1', status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/7' } };
/** jose's default: an unknown kid refetches the JWKS only when the last fetch is older than this. */
const JWKS_COOLDOWN_MS = 30_000;

/** The Observation's patient, as a server carrying out `_include=Observation:patient` adds it. */
const PATIENT = { resourceType: 'Patient', id: '7' };
let as: AuthorizationServer;
let upstream: CannedUpstream;
let service: TestService;

beforeAll(async () => {
  as = await startAuthorizationServer([appA]);
  upstream = await startCannedUpstream((_, res) => sendJson(res, 200, page([OBSERVATION, PATIENT])));
  service = await startTestService({ ...serviceModeEnv(as, `${upstream.origin}/fhir`, 'jwt'), CACHE_ENABLED: 'false' });
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await service?.close();
  await upstream?.close();
  await as?.close();
});

/** JWKS fetches the authorization server has answered. */
const jwksFetches = () => as.requestsTo.get('/jwks') ?? 0;
const observations = (token: string) => service.get('/Observation', { headers: { authorization: `Bearer ${token}` } });

/** How far `Date` has been moved ahead so far: each move goes past the last fetch the service made. */
let clockAhead = 0;

/** Moves `Date` (only: timers and sockets keep real time) past the JWKS refetch cooldown. */
function pastTheCooldown(): void {
  clockAhead += JWKS_COOLDOWN_MS + 1000;
  vi.useRealTimers();
  const now = Date.now();
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(now + clockAhead);
}

describe('a signing-key rotation', () => {
  it('a token signed by the new key is accepted: the JWKS is fetched again, once, on its unknown kid', async () => {
    const before = await as.tokenFor(appA);
    expect((await observations(before)).status).toBe(200);
    expect(jwksFetches()).toBe(1);

    await as.rotateSigningKey();
    const after = await as.tokenFor(appA);
    expect(decodeProtectedHeader(after).kid).not.toBe(decodeProtectedHeader(before).kid);
    pastTheCooldown();
    expect((await observations(after)).status).toBe(200);
    expect(jwksFetches()).toBe(2);
    // Both keys are known now: neither token fetches again.
    expect((await observations(after)).status).toBe(200);
    expect((await observations(before)).status).toBe(200);
    expect(jwksFetches()).toBe(2);
  });

  it('a token whose kid is in no JWKS is 401, and made-up kids fetch the JWKS at most once per cooldown', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const claims = decodeJwt(await as.tokenFor(appA));
    const stranger = (kid: string) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);
    pastTheCooldown();
    const fetched = jwksFetches();
    for (const kid of ['in-no-jwks', 'made-up-1', 'made-up-2']) await expectErrorCode(await observations(await stranger(kid)), 401, 'invalid-token');
    expect(jwksFetches() - fetched).toBe(1);
  });
});
