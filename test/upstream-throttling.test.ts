/**
 * A throttling upstream: 429 (and 503 that says when to come back) is retried after the wait the
 * upstream asks for — `Retry-After` in seconds or as an HTTP-date, Azure's `x-ms-retry-after-ms`,
 * Medplum's `RateLimit` — or a short backoff without one, within the request's deadline and a
 * bounded number of attempts. When the wait would pass the deadline or attempts run out, the caller
 * gets a 503 OperationOutcome with a `Retry-After` at once, not at the deadline.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { retryHintMs, retryWaitMs } from '../src/upstream/retry-hints.ts';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const REPORT = { resourceType: 'DiagnosticReport', id: 'r1', status: 'final', subject: { reference: 'Patient/1' } };
const PATH = '/api/DiagnosticReport?patient=1';
const TIMEOUT_MS = 4000;
const THROTTLED = { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'throttled', diagnostics: 'Too many requests' }] };

let upstream: CannedUpstream;
let service: TestService;
/** When each upstream request arrived (performance.now()). */
let arrivals: number[];

beforeAll(async () => {
  upstream = await startCannedUpstream();
  service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, CACHE_ENABLED: 'false', UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) });
});
afterAll(async () => {
  await service?.close();
  await upstream?.close();
});
beforeEach(() => {
  arrivals = [];
  upstream.received.length = 0;
});

function throttle(res: ServerResponse, status: number, headers: Record<string, string>): void {
  res.writeHead(status, { 'content-type': 'application/fhir+json', ...headers });
  res.end(JSON.stringify(THROTTLED));
}

/** Answers the first `times` requests with `status` and `headers`, then the page. */
function throttledThenOk(times: number, status: number, headers: () => Record<string, string>): void {
  upstream.setHandler((_, res) => {
    arrivals.push(performance.now());
    if (arrivals.length <= times) return throttle(res, status, headers());
    sendJson(res, 200, page([REPORT]));
  });
}

async function metric(name: string): Promise<number> {
  const text = await (await service.get('/metrics')).text();
  return Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
}

describe('a throttled upstream request', () => {
  it.each([
    ['Retry-After in seconds', 429, () => ({ 'retry-after': '1' }), 1000],
    ['Retry-After as an HTTP-date', 429, () => ({ 'retry-after': new Date(Date.now() + 2000).toUTCString() }), 900],
    ['x-ms-retry-after-ms (with Retry-After, as Azure sends them)', 429, () => ({ 'x-ms-retry-after-ms': '300', 'retry-after': '1' }), 300],
    ['a RateLimit header with one exhausted policy', 429, () => ({ ratelimit: '"requests";r=0;t=1, "fhirInteractions";r=40;t=60' }), 1000],
    ['no hint at all (backoff)', 429, () => ({}), 0],
    ['503 with Retry-After', 503, () => ({ 'retry-after': '1' }), 1000],
  ] as const)('with %s is retried after the wait asked for, then answered', async (_, status, headers, minimumWaitMs) => {
    const retriesBefore = await metric(`facade_upstream_retries_total{status="${status}"}`);
    throttledThenOk(1, status, headers);
    const response = await service.get(PATH);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { total: number }).total).toBe(1);
    expect(arrivals).toHaveLength(2);
    // A timer never fires early; the few ms of slack are the clock's rounding.
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(minimumWaitMs - 5);
    expect(await metric(`facade_upstream_retries_total{status="${status}"}`)).toBe(retriesBefore + 1);
  });

  it('is retried on a later page too, within the one deadline of the search', async () => {
    let calls = 0;
    upstream.setHandler((request, res) => {
      calls += 1;
      if (!request.url.includes('_page=2')) return sendJson(res, 200, page([REPORT], '/fhir/DiagnosticReport?_page=2'));
      if (calls === 2) return throttle(res, 429, { 'x-ms-retry-after-ms': '50' });
      sendJson(res, 200, page([{ ...REPORT, id: 'r2' }]));
    });
    const response = await service.get(PATH);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { total: number }).total).toBe(2);
    expect(calls).toBe(3);
  });

  it('is not retried when a 503 gives no hint: a failing server is a 502, as before', async () => {
    throttledThenOk(1, 503, () => ({}));
    expect((await service.get(PATH)).status).toBe(502);
    expect(arrivals).toHaveLength(1);
  });
});

describe('a throttled upstream request that cannot be retried in time', () => {
  it("answers 503 with the upstream's Retry-After at once when the wait would pass the deadline", async () => {
    const giveUpsBefore = await metric('facade_upstream_retry_give_ups_total{why="deadline"}');
    throttledThenOk(99, 429, () => ({ 'retry-after': '30' }));
    const started = performance.now();
    const response = await service.get(PATH);
    const elapsed = performance.now() - started;
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('30');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as { resourceType: string; issue: { code: string; details: { text: string } }[] };
    expect(body.resourceType).toBe('OperationOutcome');
    expect(body.issue[0]).toMatchObject({ code: 'throttled', details: { text: 'upstream-throttled' } });
    // Not at the deadline: the service knew it could not wait 30 s and said so.
    expect(elapsed).toBeLessThan(TIMEOUT_MS / 2);
    expect(arrivals).toHaveLength(1);
    expect(await metric('facade_upstream_retry_give_ups_total{why="deadline"}')).toBe(giveUpsBefore + 1);
    const line = service.logLines
      .map((text) => JSON.parse(text) as { message: string; code?: string; cause?: string })
      .findLast((entry) => entry.message === 'request failed');
    expect(line).toMatchObject({ code: 'upstream-throttled', cause: 'http-429' });
  });

  it('answers 503 after the last attempt when the upstream keeps throttling', async () => {
    throttledThenOk(99, 429, () => ({ 'x-ms-retry-after-ms': '20' }));
    const response = await service.get(PATH);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(arrivals).toHaveLength(4); // UPSTREAM_MAX_ATTEMPTS
  });
});

describe('the retry hints', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  const headers = (values: Record<string, string>) => (name: string) => values[name];

  it('reads each form, the most precise first', () => {
    expect(retryHintMs(headers({ 'retry-after': '7' }), now)).toBe(7000);
    expect(retryHintMs(headers({ 'retry-after': 'Sun, 22 Nov 2026 10:00:05 GMT' }), now)).toBe(5000);
    expect(retryHintMs(headers({ 'retry-after': 'Sun, 22 Nov 2026 09:59:00 GMT' }), now)).toBe(0);
    expect(retryHintMs(headers({ 'x-ms-retry-after-ms': '250', 'retry-after': '1' }), now)).toBe(250);
    expect(retryHintMs(headers({ ratelimit: '"requests";r=0;t=12, "fhirInteractions";r=0;t=30' }), now)).toBe(30_000);
  });

  it('ignores what says nothing: garbage, and a RateLimit with quota left', () => {
    expect(retryHintMs(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryHintMs(headers({ 'retry-after': '-3' }), now)).toBeUndefined();
    expect(retryHintMs(headers({ ratelimit: '"requests";r=5;t=12' }), now)).toBeUndefined();
    expect(retryHintMs(headers({}), now)).toBeUndefined();
  });

  it('adds jitter above a hint, never below, and backs off exponentially without one', () => {
    expect(retryWaitMs(1000, 1, () => 0)).toBe(1000);
    expect(retryWaitMs(1000, 1, () => 1)).toBe(1200);
    expect(retryWaitMs(60_000, 1, () => 1)).toBe(61_000);
    expect([1, 2, 3, 6].map((retry) => retryWaitMs(undefined, retry, () => 1))).toEqual([100, 200, 400, 2000]);
    expect(retryWaitMs(undefined, 1, () => 0)).toBe(50);
  });
});
