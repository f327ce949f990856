/**
 * `INTROSPECTION_CACHE_MS`: an active introspection answer is reused for that long (per token), and
 * asked for again after; with 0 every request introspects. Counted at a real authorization server
 * (oidc-provider, opaque tokens), through the whole service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPAQUE_FACADE_AUDIENCE, serviceModeEnv, startAuthorizationServer, type AuthorizationServer, type PatientApp } from './support/authorization-server.ts';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const appA: PatientApp = { clientId: 'app-a', secret: 'secret-a-0123456789', patient: '7', scope: 'patient/*.read' };
const OBSERVATION = { resourceType: 'Observation', id: 'o1', status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/7' } };
/** Short, so the test can wait past it; long enough for two back-to-back requests on a busy machine. */
const WINDOW_MS = 2000;

/** The Observation's patient, as a server carrying out `_include=Observation:patient` adds it. */
const PATIENT = { resourceType: 'Patient', id: '7' };
let as: AuthorizationServer;
let upstream: CannedUpstream;

beforeAll(async () => {
  as = await startAuthorizationServer([appA]);
  upstream = await startCannedUpstream((_, res) => sendJson(res, 200, page([OBSERVATION, PATIENT])));
});
afterAll(async () => {
  await upstream?.close();
  await as?.close();
});

async function facadeCaching(cacheMs: number): Promise<TestService> {
  return startTestService({
    ...serviceModeEnv(as, `${upstream.origin}/fhir`, 'introspection'),
    CACHE_ENABLED: 'false',
    INTROSPECTION_CACHE_MS: String(cacheMs),
  });
}

/** Introspections the authorization server has answered so far. */
const introspections = () => as.requestsTo.get('/token/introspection') ?? 0;

async function expectServed(service: TestService, token: string): Promise<void> {
  expect((await service.get('/Observation', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
}

describe('INTROSPECTION_CACHE_MS', () => {
  it('reuses a token’s answer within the window, per token, and asks again after it', async () => {
    const service = await facadeCaching(WINDOW_MS);
    try {
      const token = await as.tokenFor(appA, OPAQUE_FACADE_AUDIENCE);
      const before = introspections();
      const started = Date.now();
      await expectServed(service, token);
      await expectServed(service, token);
      expect(introspections() - before, 'two requests, one introspection').toBe(1);
      // The answer is kept for this token only: another token is asked about.
      await expectServed(service, await as.tokenFor(appA, OPAQUE_FACADE_AUDIENCE));
      expect(introspections() - before).toBe(2);

      await new Promise((resolve) => setTimeout(resolve, started + WINDOW_MS + 100 - Date.now()));
      await expectServed(service, token);
      expect(introspections() - before, 'past the window, asked again').toBe(3);
      await expectServed(service, token);
      expect(introspections() - before, 'and that answer is kept in turn').toBe(3);
    } finally {
      await service.close();
    }
  });

  it('0: every request introspects', async () => {
    const service = await facadeCaching(0);
    try {
      const token = await as.tokenFor(appA, OPAQUE_FACADE_AUDIENCE);
      const before = introspections();
      for (let i = 0; i < 3; i += 1) await expectServed(service, token);
      expect(introspections() - before).toBe(3);
    } finally {
      await service.close();
    }
  });
});
