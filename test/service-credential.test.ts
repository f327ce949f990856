/**
 * The service's own upstream credential (service mode, client credentials grant at a real
 * authorization server): fetched once, reused, refreshed when it expires, never logged, and the
 * caller's token never forwarded. Both client authentications: a secret and a signed JWT assertion.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FACADE_AUDIENCE, startAuthorizationServer, type AuthorizationServer, type PatientApp } from './support/authorization-server.ts';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';
import { expectErrorCode } from './support/outcome-code.ts';

const appA: PatientApp = { clientId: 'app-a', secret: 'secret-a-0123456789', patient: '7', scope: 'patient/*.read' };
const OBSERVATION = {
  resourceType: 'Observation',
  id: 'o1',
  status: 'final',
  code: { coding: [{ system: 'http://loinc.org', code: '72166-2' }] },
  subject: { reference: 'Patient/7' },
};
/** Short enough to see a refresh in a test, long enough that two back-to-back requests share a token. */
const UPSTREAM_TOKEN_TTL_S = 5;
/** The Observation's patient, as a server carrying out `_include=Observation:patient` adds it. */
const PATIENT = { resourceType: 'Patient', id: '7' };
const answerObservation = () => upstream.setHandler((_, res) => sendJson(res, 200, page([OBSERVATION, PATIENT])));

let as: AuthorizationServer;
let upstream: CannedUpstream;
let callerToken: string;

function serviceEnv(credential: Record<string, string>): Record<string, string> {
  return {
    UPSTREAM_URL: `${upstream.origin}/fhir`,
    CACHE_ENABLED: 'false',
    UPSTREAM_AUTH_MODE: 'service',
    UPSTREAM_TOKEN_URL: as.tokenUrl,
    UPSTREAM_SCOPE: 'system/*.read',
    CALLER_TOKEN_VALIDATION: 'jwt',
    JWKS_URL: as.jwksUrl,
    TOKEN_ISSUER: as.issuer,
    TOKEN_AUDIENCE: FACADE_AUDIENCE,
    ...credential,
  };
}

/** The bearers the upstream received, in order. */
const bearers = () => upstream.received.map((request) => String(request.headers.authorization ?? '').replace(/^Bearer /, ''));

beforeAll(async () => {
  as = await startAuthorizationServer([appA], { upstreamTokenTtl: UPSTREAM_TOKEN_TTL_S });
  upstream = await startCannedUpstream();
  answerObservation();
  callerToken = await as.tokenFor(appA);
});
afterAll(async () => {
  await upstream?.close();
  await as?.close();
});

describe('the service credential by client secret', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(
      serviceEnv({ UPSTREAM_CLIENT_ID: as.upstreamSecretClient.clientId, UPSTREAM_CLIENT_SECRET: as.upstreamSecretClient.secret }),
    );
  });
  afterAll(async () => service?.close());

  it('is fetched once, reused, refreshed when it expires, and never logged', async () => {
    upstream.received.length = 0;
    const clientId = as.upstreamSecretClient.clientId;
    const get = () => service.get('/Observation', { headers: { authorization: `Bearer ${callerToken}` } });
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(200);
    const [first, second] = bearers();
    expect(first).toBeTruthy();
    expect(second).toBe(first);
    expect(as.grantsIssued.get(clientId)).toBe(1);
    // The caller's token never goes upstream in service mode.
    expect(bearers()).not.toContain(callerToken);

    await vi.waitFor(
      async () => {
        expect((await get()).status).toBe(200);
        expect(bearers().at(-1)).not.toBe(first);
      },
      { timeout: UPSTREAM_TOKEN_TTL_S * 3000, interval: 500 },
    );
    expect(as.grantsIssued.get(clientId)).toBe(2);
    const everything = [...service.logLines, ...service.auditLines].join('\n');
    for (const token of new Set([...bearers(), callerToken])) expect(everything).not.toContain(token);
  });
});

describe('the service credential by a signed JWT assertion (SMART Backend Services)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(
      serviceEnv({
        UPSTREAM_CLIENT_ID: as.upstreamAssertionClient.clientId,
        UPSTREAM_CLIENT_ASSERTION_KEY: JSON.stringify(as.upstreamAssertionClient.privateJwk),
      }),
    );
  });
  afterAll(async () => service?.close());

  it('gets a token the upstream receives', async () => {
    upstream.received.length = 0;
    const response = await service.get('/Observation', { headers: { authorization: `Bearer ${callerToken}` } });
    expect(response.status).toBe(200);
    expect(as.grantsIssued.get(as.upstreamAssertionClient.clientId)).toBe(1);
    expect(bearers()[0]).toMatch(/^eyJ/);
  });
});

describe('a token endpoint that refuses the service', () => {
  it('answers 502, not the caller a 401', async () => {
    const service = await startTestService(serviceEnv({ UPSTREAM_CLIENT_ID: as.upstreamSecretClient.clientId, UPSTREAM_CLIENT_SECRET: 'wrong-secret' }));
    try {
      const response = await service.get('/Observation', { headers: { authorization: `Bearer ${callerToken}` } });
      expect(response.status).toBe(502);
      expect(service.logLines.join('\n')).not.toContain('wrong-secret');
    } finally {
      await service.close();
    }
  });
});

describe('an upstream that refuses the service credential', () => {
  it.each([401, 403])('(HTTP %i) is the service failing, 502, and the credential is fetched anew next time', async (status) => {
    const service = await startTestService(
      serviceEnv({ UPSTREAM_CLIENT_ID: as.upstreamSecretClient.clientId, UPSTREAM_CLIENT_SECRET: as.upstreamSecretClient.secret }),
    );
    const grants = () => as.grantsIssued.get(as.upstreamSecretClient.clientId) ?? 0;
    const get = () => service.get('/Observation', { headers: { authorization: `Bearer ${callerToken}` } });
    try {
      const before = grants();
      upstream.received.length = 0;
      upstream.setHandler((_, res) => sendJson(res, status, { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'security' }] }));
      // Not the caller's 401/403: the caller's token is good; the service's credential was refused.
      await expectErrorCode(await get(), 502, 'upstream-credential-failed');
      // The operator's log line says what the upstream answered.
      expect(service.logLines.some((line) => line.includes('"code":"upstream-credential-failed"') && line.includes(`"cause":"http-${status}"`))).toBe(true);
      expect(grants()).toBe(before + 1);
      const refused = bearers().at(-1);

      answerObservation();
      expect((await get()).status).toBe(200);
      expect(grants(), 'the refused credential is dropped, a new one fetched').toBe(before + 2);
      expect(bearers().at(-1)).not.toBe(refused);
      expect((await get()).status).toBe(200);
      expect(grants(), 'and the new one is kept').toBe(before + 2);
    } finally {
      answerObservation();
      await service.close();
    }
  });
});
