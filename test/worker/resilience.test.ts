/**
 * The upstream path's resilience inside workerd, where the platform `fetch` decodes gzip and br by
 * itself: compressed answers are asked for and give the same legacy answer as a plain one, the size
 * bound applies to the decoded bytes (a gzip bomb is a 502), a coding not asked for is a 502, and a
 * 429 is retried after the wait asked for, or answered with a 503 and Retry-After when it cannot be.
 */
import { describe, expect, inject, it } from 'vitest';
import { createWorker } from '../../src/entry/worker.ts';
import { captureWorkerLog } from './worker-log.ts';

const env = { UPSTREAM_URL: inject('faultUpstreamUrl'), UPSTREAM_MAX_BODY_BYTES: String(1024 * 1024), CACHE_ENABLED: 'false', UPSTREAM_TIMEOUT_MS: '5000' };
const ctx = { waitUntil: () => {}, passThroughOnException: () => {} };
const worker = createWorker();

async function onWorker(path: string): Promise<Response> {
  return worker.fetch(new Request(`http://facade.test${path}`), env, ctx);
}

async function comparable(response: Response): Promise<string> {
  expect(response.status).toBe(200);
  return (await response.text()).replace(/^\{"resourceType":"Bundle","id":"[^"]+"/, '{"resourceType":"Bundle","id":""');
}

describe('the Worker behind a compressing, throttling upstream', () => {
  const log = captureWorkerLog();

  it('asks for the codings the platform decodes, and maps gzip and br answers exactly as plain ones', async () => {
    const plain = await comparable(await onWorker('/api/DiagnosticReport?patient=plain'));
    expect(plain).toContain('Panel 39');
    const seen = (await (await fetch(`${new URL(env.UPSTREAM_URL).origin}/seen`)).json()) as { acceptEncoding: string };
    expect(seen.acceptEncoding).toBe('gzip, br');
    expect(await comparable(await onWorker('/api/DiagnosticReport?patient=gzip'))).toBe(plain);
    expect(await comparable(await onWorker('/api/DiagnosticReport?patient=br'))).toBe(plain);
    expect(log.requests().map((line) => line.status)).toEqual([200, 200, 200]);
  });

  it('answers 502 to a coding it did not ask for (the platform would pass deflate through raw)', async () => {
    const response = await onWorker('/api/DiagnosticReport?patient=deflate');
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ issue: [{ code: 'invalid' }] });
    expect(log.errors()).toMatchObject([{ code: 'upstream-bad-body', cause: 'unknown-encoding' }]);
  });

  it('bounds the decoded size: a 1 GiB gzip bomb is a 502', async () => {
    const response = await onWorker('/api/DiagnosticReport?patient=bomb');
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ issue: [{ code: 'too-costly' }] });
    expect(log.errors()).toMatchObject([{ code: 'upstream-too-large', cause: 'too-large' }]);
  });

  it('retries a 429 after the wait asked for', async () => {
    const response = await onWorker('/api/DiagnosticReport?patient=throttle-once');
    expect(response.status).toBe(200);
    expect(log.errors()).toEqual([]);
    expect(log.requests()).toMatchObject([{ status: 200 }]);
  });

  it('answers 503 with Retry-After when the upstream asks to wait past the deadline', async () => {
    const response = await onWorker('/api/DiagnosticReport?patient=throttle-forever');
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('120');
    expect(await response.json()).toMatchObject({ issue: [{ code: 'throttled' }] });
    expect(log.errors()).toMatchObject([{ code: 'upstream-throttled', cause: 'http-429' }]);
    expect(log.requests()).toMatchObject([{ status: 503 }]);
  });
});
