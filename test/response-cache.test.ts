/**
 * The response cache over real HTTP with a canned upstream: callers never share an entry, identical
 * misses share one upstream call, failures are not kept, the byte bound evicts, stale entries are
 * refreshed once, ETags answer 304, and no token reaches a key, a log line or a metric.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const TOKEN_A = 'token-of-caller-a';
const TOKEN_B = 'token-of-caller-b';
let version = 0;
// The version shows in `status`, a field the legacy shape carries, so a refreshed answer is visible.
const report = (id: string) => ({ resourceType: 'DiagnosticReport', id, status: `final-v${version}`, subject: { reference: 'Patient/1' } });

let upstream: CannedUpstream | undefined;
let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  await upstream?.close();
});

async function start(env: Record<string, string> = {}, delayMs = 0): Promise<{ upstream: CannedUpstream; service: TestService }> {
  upstream = await startCannedUpstream((request, res) => {
    const patient = new URL(request.url, 'http://x').searchParams.get('patient') ?? 'none';
    setTimeout(() => sendJson(res, 200, page([report(`r-${patient.replace('Patient/', '')}`)])), delayMs);
  });
  service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, ...env });
  return { upstream, service };
}

const outcomes = (svc: TestService) =>
  svc.logLines
    .map((line) => JSON.parse(line) as { message: string; cache?: string })
    .filter((l) => l.message === 'request')
    .map((l) => l.cache);

describe('the response cache', () => {
  it('never lets two callers share an entry', async () => {
    const { upstream, service } = await start();
    await service.get(`/api/DiagnosticReport?patient=1&access_token=${TOKEN_A}`);
    await service.get(`/api/DiagnosticReport?patient=1&access_token=${TOKEN_B}`);
    await service.get(`/api/DiagnosticReport?patient=1`);
    await service.get(`/api/DiagnosticReport?patient=1&access_token=${TOKEN_A}`);
    expect(outcomes(service)).toEqual(['miss', 'miss', 'miss', 'hit']);
    expect(upstream.received).toHaveLength(3);
    expect(upstream.received.map((r) => r.headers.authorization)).toEqual([`Bearer ${TOKEN_A}`, `Bearer ${TOKEN_B}`, undefined]);
  });

  it('makes one upstream call for 50 concurrent identical misses', async () => {
    const { upstream, service } = await start({}, 100);
    const answers = await Promise.all(Array.from({ length: 50 }, () => service.get(`/api/DiagnosticReport?patient=7&access_token=${TOKEN_A}`)));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(upstream.received).toHaveLength(1);
  });

  it('does not keep an upstream failure', async () => {
    const { upstream, service } = await start();
    upstream.setHandler((_, res) => sendJson(res, 500, {}));
    expect((await service.get('/api/DiagnosticReport?patient=2')).status).toBe(502);
    upstream.setHandler((_, res) => sendJson(res, 200, page([report('r-2')])));
    expect((await service.get('/api/DiagnosticReport?patient=2')).status).toBe(200);
    expect(upstream.received).toHaveLength(2);
  });

  it('evicts the least recently used entry to stay under its byte bound', async () => {
    const { upstream, service } = await start({ CACHE_MAX_BYTES: '2500' });
    for (const patient of ['1', '2', '3', '1']) await service.get(`/api/DiagnosticReport?patient=${patient}`);
    expect(upstream.received).toHaveLength(4);
    expect(await (await service.get('/metrics')).text()).toMatch(/facade_cache_events_total\{outcome="eviction"\} [1-9]/);
  });

  it('serves a stale entry within the window while one refresh runs, then the refreshed one', async () => {
    const { upstream, service } = await start({ CACHE_TTL_MS: '1', CACHE_STALE_MS: '600000' });
    const status = async () =>
      ((await (await service.get('/api/DiagnosticReport?patient=5')).json()) as { entry: { resource: { status: string } }[] }).entry[0]!.resource.status;
    version = 1;
    expect(await status()).toBe('final-v1');
    version = 2;
    const stored = Date.now();
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(stored + 2)); // past the 1 ms TTL
    expect(await status()).toBe('final-v1');
    await vi.waitFor(() => expect(upstream.received).toHaveLength(2));
    await vi.waitFor(async () => expect(await status()).toBe('final-v2'));
    expect(outcomes(service).slice(0, 2)).toEqual(['miss', 'stale']);
  });

  it('answers If-None-Match with 304 and gives every 200 a fresh Bundle id', async () => {
    const { service } = await start();
    const path = `/api/DiagnosticReport?patient=3&access_token=${TOKEN_A}`;
    const first = await service.get(path);
    const second = await service.get(path);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    expect(second.headers.get('etag')).toBe(etag);
    expect(first.headers.get('cache-control')).toContain('private');
    const [a, b] = [(await first.json()) as { id: string }, (await second.json()) as { id: string }];
    expect(a.id).not.toBe(b.id);
    const notModified = await service.get(path, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');
  });

  it('answers 200 to a non-matching If-None-Match, and ignores If-None-Match on POST', async () => {
    const { service } = await start();
    const path = '/api/DiagnosticReport?patient=8';
    const etag = (await service.get(path)).headers.get('etag')!;
    expect((await service.get(path, { headers: { 'if-none-match': 'W/"other"' } })).status).toBe(200);
    const form = { 'content-type': 'application/x-www-form-urlencoded', 'if-none-match': etag };
    expect((await service.get('/api/DiagnosticReport/_search', { method: 'POST', headers: form, body: 'patient=8' })).status).toBe(200);
  });

  it('gives one caller the same entry whether the token comes in the query, the header or a form body', async () => {
    const { upstream, service } = await start();
    await service.get(`/api/DiagnosticReport?patient=9&access_token=${TOKEN_A}`);
    await service.get('/api/DiagnosticReport?patient=9', { headers: { authorization: `Bearer ${TOKEN_A}` } });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    await service.get('/api/DiagnosticReport/_search', { method: 'POST', headers: form, body: `patient=9&access_token=${TOKEN_A}` });
    expect(upstream.received).toHaveLength(2); // the POST search is its own route, so its own entry
    expect(outcomes(service)).toEqual(['miss', 'hit', 'miss']);
  });

  it('exposes valid Prometheus text: HELP and TYPE per metric, cumulative buckets ending in +Inf = count', async () => {
    const { service } = await start();
    await service.get('/api/DiagnosticReport?patient=10');
    const text = await (await service.get('/metrics')).text();
    for (const name of [
      'facade_requests_total',
      'facade_cache_events_total',
      'facade_upstream_request_duration_seconds',
      'facade_upstream_pages',
      'facade_cache_bytes',
    ]) {
      expect(text).toMatch(new RegExp(`^# HELP ${name} .+$`, 'm'));
      expect(text).toMatch(new RegExp(`^# TYPE ${name} (counter|gauge|histogram)$`, 'm'));
    }
    const buckets = [...text.matchAll(/^facade_upstream_request_duration_seconds_bucket\{le="([^"]+)"\} (\d+)$/gm)].map((m) => Number(m[2]));
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
    expect(String(buckets.at(-1))).toBe(/^facade_upstream_request_duration_seconds_count (\d+)$/m.exec(text)?.[1]);
    expect(text).toMatch(/^facade_requests_total\{route="DiagnosticReport.search",status="200"\} 1$/m);
  });

  it('keeps no token in a cache key, a log line or a metric', async () => {
    const { service } = await start();
    await service.get(`/api/DiagnosticReport?patient=4&access_token=${TOKEN_A}`);
    await service.get(`/api/DiagnosticReport?patient=4`, { headers: { authorization: `Bearer ${TOKEN_B}` } });
    const metrics = await (await service.get('/metrics')).text();
    const keys = service.cache!.keys();
    expect(keys).toHaveLength(2);
    for (const text of [keys.join('\n'), service.logLines.join('\n'), metrics]) {
      expect(text).not.toContain('token-of-caller');
    }
  });

  it('can be turned off', async () => {
    const { upstream, service } = await start({ CACHE_ENABLED: 'false' });
    await service.get('/api/DiagnosticReport?patient=6');
    await service.get('/api/DiagnosticReport?patient=6');
    expect(upstream.received).toHaveLength(2);
    expect(outcomes(service)).toEqual(['bypass', 'bypass']);
  });
});
