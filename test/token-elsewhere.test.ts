/**
 * The token's value standing elsewhere in the request (the path id, `patient`, `code`): the service
 * knows the token, so it refuses the request before anything goes upstream, and the token reaches
 * no error text, log line, audit line or upstream URL.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

/** As the old system's tokens are: 64 characters of [A-Za-z0-9], so also a well-formed record id. */
const TOKEN = 'Q7wz3LkP0aNbV9cXr2Ts5Dy8Fh1Gj4Km6Ln0Pq3Rs5Tu7Vw9Xy1Za3Bc5De7Fg9H';

let upstream: CannedUpstream;
let service: TestService;

beforeAll(async () => {
  upstream = await startCannedUpstream((_, res) => sendJson(res, 200, page([])));
  service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, CACHE_ENABLED: 'false' });
});
afterAll(async () => {
  await service?.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.received.length = 0;
  service.logLines.length = 0;
  service.auditLines.length = 0;
});

const requests: { name: string; path: string; init?: RequestInit }[] = [
  { name: 'the token as the record id', path: `/api/DiagnosticReport/${TOKEN}?access_token=${TOKEN}` },
  { name: 'the token as the record id, sent as a Bearer header', path: `/CarePlan/${TOKEN}`, init: { headers: { authorization: `Bearer ${TOKEN}` } } },
  { name: 'the token as the patient', path: `/api/DiagnosticReport?patient=${TOKEN}&access_token=${TOKEN}` },
  { name: 'the token inside a code', path: `/Observation?patient=1&code=${encodeURIComponent(`http://loinc.org|${TOKEN}`)}&access_token=${TOKEN}` },
  {
    name: 'the token in a form body',
    path: `/api/AllergyIntolerance/_search?access_token=${TOKEN}`,
    init: { method: 'POST', body: new URLSearchParams({ patient: TOKEN }) },
  },
];

describe('the token standing elsewhere in the request', () => {
  for (const { name, path, init } of requests) {
    it(`${name}: 400 before anything goes upstream, and the token is written nowhere`, async () => {
      const response = await service.get(path, init);
      const body = await response.text();
      expect(response.status).toBe(400);
      expect(JSON.parse(body)).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'invalid' }] });
      expect(body).not.toContain(TOKEN);
      expect(upstream.received).toEqual([]);
      expect(service.logLines.length).toBeGreaterThan(0);
      expect(service.auditLines.length).toBeGreaterThan(0);
      expect([...service.logLines, ...service.auditLines].join('\n')).not.toContain(TOKEN);
    });
  }

  it('a base64 token whose "+" a query decodes as a space: 400 before anything goes upstream', async () => {
    const token = 'aB3dE6gH9+kL2nO5/qR8=';
    const response = await service.get(`/Observation?patient=1&code=${token}`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(400);
    expect(upstream.received).toEqual([]);
    expect([await response.text(), ...service.logLines, ...service.auditLines].join('\n')).not.toContain('aB3dE6gH9');
  });

  it('a next link that echoes the token: 502, and the link is never requested', async () => {
    const token = 'EchoedToken0123456789';
    upstream.setHandler((request, res) =>
      sendJson(res, 200, request.url.includes('echo') ? page([]) : page([], `${upstream.origin}/fhir/Observation?echo=${encodeURIComponent(token)}`)),
    );
    try {
      const response = await service.get(`/Observation?patient=1&access_token=${token}`);
      expect(response.status).toBe(502);
      expect(upstream.received.map((request) => request.url).join('\n')).not.toContain('echo');
    } finally {
      upstream.setHandler((_, res) => sendJson(res, 200, page([])));
    }
  });

  it('still serves a request whose values only share a few characters with a short token', async () => {
    const response = await service.get('/Observation?patient=1&category=social-history&access_token=t');
    expect(response.status).toBe(200);
    expect(upstream.received).toHaveLength(1);
  });
});
