/**
 * The hit path over real HTTP: what it skips (validating a request it has validated before) never
 * changes an answer. An invalid query still gets its 400, a token is still checked on every hit, a
 * caller never gets another's entry, and bodies sent from pooled buffers under concurrency are each
 * whole and each with its own Bundle id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const TOKEN_A = 'token-of-caller-a';
const TOKEN_B = 'token-of-caller-b';
const reports = Array.from({ length: 30 }, (_, index) => ({
  resourceType: 'DiagnosticReport',
  id: `r${index}`,
  status: 'final',
  subject: { reference: 'Patient/1' },
  conclusion: 'x'.repeat(800),
}));

let upstream: CannedUpstream;
let service: TestService;
beforeAll(async () => {
  upstream = await startCannedUpstream((_, res) => sendJson(res, 200, page(reports)));
  service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir` });
});
afterAll(async () => {
  await service?.close();
  await upstream?.close();
});

const lastCache = () => (JSON.parse(service.logLines.filter((line) => line.includes('"message":"request"')).at(-1)!) as { cache?: string }).cache;

describe('a request answered from the cache', () => {
  it('still gets its 400 when its query is invalid, however often it comes', async () => {
    const path = `/api/DiagnosticReport?patient=1&access_token=${TOKEN_A}`;
    expect((await service.get(path)).status).toBe(200);
    expect((await service.get(path)).status).toBe(200);
    expect(lastCache()).toBe('hit');
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await service.get(`${path}&start_date=2024-13-45`)).status).toBe(400);
      expect((await service.get(`/api/DiagnosticReport?patient=1&patient=2&access_token=${TOKEN_A}`)).status).toBe(400);
    }
  });

  it('checks the token on every request: two different tokens, a malformed header, a token twice', async () => {
    const path = `/api/DiagnosticReport?patient=1&access_token=${TOKEN_A}`;
    await service.get(path);
    expect((await service.get(path, { headers: { authorization: `Bearer ${TOKEN_B}` } })).status).toBe(400);
    expect((await service.get(path, { headers: { authorization: 'Basic abc' } })).status).toBe(401);
    expect((await service.get(`${path}&access_token=${TOKEN_A}`)).status).toBe(400);
    expect((await service.get(`/api/DiagnosticReport?patient=1&access_token=a%20b`)).status).toBe(401);
  });

  it('reads a query after `??` as every other part of the service does (the token found, then checked)', async () => {
    const path = `/api/DiagnosticReport??access_token=${TOKEN_A}&patient=4`;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      upstream.received.length = 0;
      expect((await service.get(path)).status).toBe(200);
      if (attempt === 0) expect(upstream.received.map((request) => request.headers.authorization)).toEqual([`Bearer ${TOKEN_A}`]);
    }
    expect(lastCache()).toBe('hit');
    expect((await service.get(path, { headers: { authorization: `Bearer ${TOKEN_B}` } })).status).toBe(400);
    expect((await service.get(`${path}&access_token=${TOKEN_B}`)).status).toBe(400);
  });

  it("sends the caller's own token upstream for a request it has validated before (the memo keeps no token)", async () => {
    // Entries fresh for 1 ms and never stale: the second request is found validated but loads anew.
    const shortLived = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, CACHE_TTL_MS: '1', CACHE_STALE_MS: '0' });
    try {
      const path = `/api/DiagnosticReport?patient=5&access_token=${TOKEN_A}`;
      upstream.received.length = 0;
      for (let attempt = 0; attempt < 2; attempt += 1) {
        expect((await shortLived.get(path)).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(upstream.received.map((request) => request.headers.authorization)).toEqual([`Bearer ${TOKEN_A}`, `Bearer ${TOKEN_A}`]);
    } finally {
      await shortLived.close();
    }
  });

  it("is never another caller's: the same query with another token is a miss of its own", async () => {
    await service.get(`/api/DiagnosticReport?patient=3&access_token=${TOKEN_A}`);
    await service.get(`/api/DiagnosticReport?patient=3&access_token=${TOKEN_B}`);
    expect(lastCache()).toBe('miss');
    await service.get('/api/DiagnosticReport?patient=3');
    expect(lastCache()).toBe('miss');
    // The same caller with the token in the header and the parameters in another order: its entry.
    await service.get('/api/DiagnosticReport?patient=3', { headers: { authorization: `Bearer ${TOKEN_B}` } });
    expect(lastCache()).toBe('hit');
  });

  it('sends each body whole with its own Bundle id, many at once', async () => {
    const path = `/api/DiagnosticReport?patient=4&access_token=${TOKEN_A}`;
    const first = (await (await service.get(path)).json()) as { id: string };
    const answers = await Promise.all(Array.from({ length: 200 }, async () => (await service.get(path)).text()));
    const ids = new Set<string>();
    for (const text of answers) {
      const body = JSON.parse(text) as { id: string; entry: unknown[] };
      expect(body.id).toMatch(/^[0-9a-f]{32}$/);
      expect({ ...body, id: first.id }).toEqual(first);
      ids.add(body.id);
    }
    expect(ids.size).toBe(answers.length);
  });
});
