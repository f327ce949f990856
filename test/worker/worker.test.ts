/**
 * The Worker inside workerd: every envelope kind, the auth cases and bad input, against the embedded
 * upstream; where Node and the Worker could differ, their answers are compared. What each request
 * logs is read from the Worker's log. (An unreachable upstream is in test/worker-upstream-down.test.ts:
 * workerd prints a stack trace for it that only a test owning the workerd process can read.)
 */
import { describe, expect, inject, it } from 'vitest';
import worker, { createWorker } from '../../src/entry/worker.ts';
import { captureWorkerLog } from './worker-log.ts';

const env = { UPSTREAM_URL: inject('upstreamUrl'), UPSTREAM_TIMEOUT_MS: '5000' };
const ctx = { waitUntil: () => {}, passThroughOnException: () => {} };

async function onWorker(path: string, init?: RequestInit): Promise<Response> {
  return worker.fetch(new Request(`http://facade.test${path}`, init), env, ctx);
}

/** The body without the per-response Bundle id, which differs by design. */
function comparable(text: string): string {
  return text.replace(/^\{"resourceType":"Bundle","id":"[^"]+"/, '{"resourceType":"Bundle","id":""');
}

describe('the Worker in workerd', () => {
  const log = captureWorkerLog();

  it('runs inside workerd, not Node', () => {
    expect(typeof navigator !== 'undefined' && navigator.userAgent).toBe('Cloudflare-Workers');
  });

  it.each([
    ['a Bundle', '/api/DiagnosticReport?patient=1'],
    ['a "search set" Bundle', '/Observation?patient=1&access_token=t&_revinclude=Provenance:target'],
    ['a bare array', '/Orders?patient=1&access_token=t'],
    ['a single record', '/api/CarePlan/1?access_token=t'],
    ['an Encounter with its serialized record', '/Encounter?patient=1'],
  ])('answers %s exactly as the Node service does', async (_, path) => {
    const [fromWorker, fromNode] = await Promise.all([onWorker(path), fetch(`${inject('nodeFacadeUrl')}${path}`)]);
    expect(fromWorker.status).toBe(200);
    expect(fromWorker.headers.get('content-type')).toBe(fromNode.headers.get('content-type'));
    expect(fromWorker.headers.get('etag')).toBe(fromNode.headers.get('etag'));
    const body = await fromWorker.text();
    expect(body.length).toBeGreaterThan(50);
    expect(comparable(body)).toBe(comparable(await fromNode.text()));
    expect(log.requests()).toMatchObject([{ status: 200, cache: 'miss' }]);
    expect(log.audits()).toMatchObject([{ status: 200, outcome: 'allowed' }]);
  });

  it.each([
    ['401 for a by-id read without a token', '/api/DiagnosticReport/1', 401],
    ['403 for Orders without a token', '/Orders?patient=1', 403],
    ['400 for a bad parameter', '/api/DiagnosticReport?start_date=2021-02-30', 400],
    ['404 for an unknown id', '/api/DiagnosticReport/99999999?access_token=t', 404],
    ['404 for an unknown path', '/nothing-here', 404],
  ])('answers %s with an OperationOutcome, as Node does', async (_, path, status) => {
    const [fromWorker, fromNode] = await Promise.all([onWorker(path), fetch(`${inject('nodeFacadeUrl')}${path}`)]);
    expect(fromWorker.status).toBe(status);
    expect(fromNode.status).toBe(status);
    expect(await fromWorker.json()).toEqual(await fromNode.json());
    expect(log.requests()).toMatchObject([{ status }]);
    expect(log.errors()).toEqual([]);
  });

  it('answers 405 to a write and keeps a POST _search working', async () => {
    expect((await onWorker('/api/DiagnosticReport/1', { method: 'DELETE' })).status).toBe(405);
    const posted = await onWorker('/api/DiagnosticReport/_search', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'patient=1&start_date=2024-01-01',
    });
    expect(posted.status).toBe(200);
    expect(log.requests().map((line) => [line.method, line.status])).toEqual([
      ['DELETE', 405],
      ['POST', 200],
    ]);
  });

  it('serves a second identical request from its per-isolate cache, with a 304 for its ETag', async () => {
    const path = '/api/CareTeam?patient=2&access_token=cache-test';
    const first = await onWorker(path);
    const etag = first.headers.get('etag')!;
    const again = await onWorker(path, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    const metrics = await (await onWorker('/metrics')).text();
    expect(metrics).toMatch(/facade_cache_events_total\{outcome="hit"\} [1-9]/);
    const searches = log.requests().filter((line) => line.route === 'CareTeam.search');
    expect(searches.map((line) => [line.status, line.cache])).toEqual([
      [200, 'miss'],
      [304, 'hit'],
    ]);
  });
});

describe('a Worker without configuration', () => {
  it('answers callers a generic 503 when UPSTREAM_URL is not bound, and names the key in its log, once', async () => {
    const logged: { message: string; fields?: Record<string, unknown> }[] = [];
    const unconfigured = createWorker((_level, message, fields) => void logged.push({ message, fields }));
    for (const path of ['/healthz', '/api/DiagnosticReport?patient=1']) {
      const response = await unconfigured.fetch(new Request(`http://facade.test${path}`), {}, ctx);
      expect(response.status).toBe(503);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const body = JSON.stringify(await response.json());
      expect(JSON.parse(body)).toMatchObject({ issue: [{ code: 'transient', details: { text: 'service-unavailable' } }] });
      expect(body).not.toContain('UPSTREAM_URL');
    }
    expect(logged).toEqual([
      {
        message: 'invalid configuration: every request is answered 503',
        fields: { problems: 'UPSTREAM_URL: required here (no embedded upstream on this runtime)' },
      },
    ]);
  });
});
