/**
 * The bulkhead, in the issue's scenario: 100 legacy requests stuck on an upstream resource type
 * that hangs must not hold a request for another type hostage (before, it waited the whole 14.6 s
 * deadline for one of 64 pooled connections). A hanging type holds at most its share; requests
 * beyond that share wait a bounded time and fail fast with a 503, never at the deadline.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config.ts';
import { Bulkhead } from '../src/upstream/bulkhead.ts';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const TIMEOUT_MS = 10_000;
const STUCK = 100;
const PER_TYPE = 16;
const REPORT = { resourceType: 'DiagnosticReport', id: 'r1', status: 'final', subject: { reference: 'Patient/1' } };
const CONDITION = { resourceType: 'Condition', id: 'c1', subject: { reference: 'Patient/1' } };

let upstream: CannedUpstream;
let service: TestService;
/** Condition searches the upstream holds without answering. */
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  upstream = await startCannedUpstream((request, res) => {
    if (request.url.startsWith('/fhir/Condition')) return void hanging.push(res);
    sendJson(res, 200, page([REPORT]));
  });
  service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, CACHE_ENABLED: 'false', UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) });
});
afterAll(async () => {
  await service?.close();
  await upstream?.close();
});

async function metric(name: string): Promise<number> {
  const text = await (await service.get('/metrics')).text();
  return Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
}

describe('with 100 requests stuck on a hanging upstream resource type', () => {
  it('a request for another type answers promptly, and the stuck ones beyond their share fail fast with 503', async () => {
    const stuck = Array.from({ length: STUCK }, async () => {
      const started = performance.now();
      const response = await service.get('/Condition?patient=1');
      return { status: response.status, retryAfter: response.headers.get('retry-after'), ms: performance.now() - started, body: await response.text() };
    });
    // Wait until every stuck request is either held upstream or waiting for room.
    const queued = () => metric('facade_upstream_queued_total{partition="Condition"}');
    await expect.poll(async () => hanging.length + (await queued()), { timeout: 5000 }).toBe(STUCK);
    expect(hanging).toHaveLength(PER_TYPE);

    const started = performance.now();
    const healthy = await service.get('/api/DiagnosticReport?patient=1');
    const healthyMs = performance.now() - started;
    expect(healthy.status).toBe(200);
    expect(((await healthy.json()) as { total: number }).total).toBe(1);
    // Generous: the deadline is 10 s and, before, the answer came only when a stuck request gave up.
    expect(healthyMs).toBeLessThan(2000);

    // The stuck requests beyond the share waited at most UPSTREAM_QUEUE_WAIT_MS (1 s), not the deadline.
    await expect.poll(async () => metric('facade_upstream_bulkhead_rejections_total{partition="Condition"}'), { timeout: 5000 }).toBe(STUCK - PER_TYPE);
    expect(hanging).toHaveLength(PER_TYPE);

    // Now the upstream answers the ones it held.
    for (const res of hanging) sendJson(res, 200, page([CONDITION]));
    const answers = await Promise.all(stuck);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(PER_TYPE);
    const refused = answers.filter((answer) => answer.status === 503);
    expect(refused).toHaveLength(STUCK - PER_TYPE);
    for (const answer of refused) {
      expect(answer.retryAfter).toBe('1');
      expect(JSON.parse(answer.body)).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'transient', details: { text: 'upstream-busy' } }] });
      expect(answer.ms).toBeLessThan(TIMEOUT_MS / 2);
    }
  });
});

describe('the bulkhead', () => {
  const farDeadline = () => Date.now() + 60_000;
  const never = new AbortController().signal;

  it('lets a waiting request in when a place of its partition frees up, in arrival order', async () => {
    const bulkhead = new Bulkhead({ maxInFlight: 10, maxInFlightPerPartition: 1, maxQueueWaitMs: 5000 });
    const first = await bulkhead.acquire('A', farDeadline(), never);
    const order: string[] = [];
    const queued = (name: string) => (release: () => void) => {
      order.push(name);
      return release;
    };
    const second = bulkhead.acquire('A', farDeadline(), never).then(queued('second'));
    const third = bulkhead.acquire('A', farDeadline(), never).then(queued('third'));
    // Another partition is not queued behind them.
    (await bulkhead.acquire('B', farDeadline(), never))();
    first();
    (await second)();
    (await third)();
    expect(order).toEqual(['second', 'third']);
    expect(bulkhead.inFlight()).toBe(0);
  });

  it('respects the total as well as the share', async () => {
    const bulkhead = new Bulkhead({ maxInFlight: 2, maxInFlightPerPartition: 2, maxQueueWaitMs: 50 });
    await bulkhead.acquire('A', farDeadline(), never);
    await bulkhead.acquire('B', farDeadline(), never);
    await expect(bulkhead.acquire('C', farDeadline(), never)).rejects.toMatchObject({ code: 'upstream-busy', retryAfterSeconds: 1 });
  });

  it('takes back a place whose holder vanished without releasing it (a cancelled Worker request)', async () => {
    const bulkhead = new Bulkhead({ maxInFlight: 1, maxInFlightPerPartition: 1, maxQueueWaitMs: 50 });
    // The holder's deadline is long past (plus the 5 s margin): its place is free again.
    await bulkhead.acquire('A', Date.now() - 6000, never);
    const release = await bulkhead.acquire('A', farDeadline(), never);
    expect(bulkhead.inFlight('A')).toBe(1);
    release();
  });

  it("stops waiting when the request's deadline signal fires", async () => {
    const bulkhead = new Bulkhead({ maxInFlight: 1, maxInFlightPerPartition: 1, maxQueueWaitMs: 5000 });
    await bulkhead.acquire('A', farDeadline(), never);
    const controller = new AbortController();
    const waiting = bulkhead.acquire('A', farDeadline(), controller.signal);
    controller.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
  });
});

describe('the bulkhead configuration', () => {
  it('refuses a per-type share larger than the total, naming the key', () => {
    expect(() => parseConfig({ UPSTREAM_MAX_IN_FLIGHT: '8', UPSTREAM_MAX_IN_FLIGHT_PER_TYPE: '16' })).toThrow(ConfigError);
    expect(() => parseConfig({ UPSTREAM_MAX_IN_FLIGHT: '8', UPSTREAM_MAX_IN_FLIGHT_PER_TYPE: '16' })).toThrow(/UPSTREAM_MAX_IN_FLIGHT_PER_TYPE/);
    expect(parseConfig({}).UPSTREAM_MAX_IN_FLIGHT_PER_TYPE).toBe(16);
  });
});
