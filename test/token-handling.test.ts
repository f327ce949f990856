/**
 * The access token (spec section 5): taken from `access_token` or a Bearer header, it reaches the
 * upstream only in the Authorization header and appears in no URL sent upstream and no log line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const TOKEN = 'eyJhbGciOi.secret-token-value.sig';
const OBSERVATION = {
  resourceType: 'Observation',
  id: 'o1',
  status: 'final',
  code: { coding: [{ system: 'http://loinc.org', code: '72166-2' }] },
  subject: { reference: 'Patient/7' },
};

/** The Observation's patient, as a server carrying out `_include=Observation:patient` adds it. */
const PATIENT = { resourceType: 'Patient', id: '7' };
let upstream: CannedUpstream;
let service: TestService;

// The cache is off: these tests send the same request to a changing upstream on purpose.
beforeAll(async () => {
  upstream = await startCannedUpstream((_, res) => sendJson(res, 200, page([OBSERVATION, PATIENT])));
  service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, CACHE_ENABLED: 'false' });
});
afterAll(async () => {
  await service?.close();
  await upstream?.close();
});

describe('a token sent as access_token', () => {
  it('reaches the upstream only as a Bearer header and is never logged', async () => {
    upstream.received.length = 0;
    const response = await service.get(`/Observation?patient=7&access_token=${encodeURIComponent(TOKEN)}`);
    expect(response.status).toBe(200);
    expect(upstream.received).toHaveLength(1);
    const [request] = upstream.received;
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.url).not.toContain('secret-token-value');
    expect(request?.url).not.toContain('access_token');
    expect(service.logLines.length).toBeGreaterThan(0);
    expect(service.logLines.join('\n')).not.toContain('secret-token-value');
  });

  it('is not logged or echoed when the request fails', async () => {
    upstream.setHandler((_, res) => sendJson(res, 500, {}));
    const response = await service.get(`/Observation?patient=bad!id&access_token=${encodeURIComponent(TOKEN)}`);
    expect(response.status).toBe(400);
    expect(await response.text()).not.toContain('secret-token-value');
    const failed = await service.get(`/Observation?patient=7&access_token=${encodeURIComponent(TOKEN)}`);
    expect(failed.status).toBe(502);
    expect(await failed.text()).not.toContain('secret-token-value');
    expect(service.logLines.join('\n')).not.toContain('secret-token-value');
    upstream.setHandler((_, res) => sendJson(res, 200, page([OBSERVATION, PATIENT])));
  });
});

describe('a token sent as an Authorization header', () => {
  it('is forwarded the same way', async () => {
    upstream.received.length = 0;
    const response = await service.get('/Observation?patient=7', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(upstream.received[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('must agree with access_token when both are sent', async () => {
    const response = await service.get('/Observation?patient=7&access_token=one', { headers: { authorization: 'Bearer two' } });
    expect(response.status).toBe(400);
  });
});

describe('a request without a token', () => {
  it('sends no Authorization header upstream', async () => {
    upstream.received.length = 0;
    upstream.setHandler((_, res) => sendJson(res, 200, page([])));
    const response = await service.get('/api/DiagnosticReport?patient=7');
    expect(response.status).toBe(200);
    expect(upstream.received[0]?.headers.authorization).toBeUndefined();
  });
});
