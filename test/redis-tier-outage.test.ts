/**
 * The Redis tier failing and expiring, on a real Redis server: stopped mid-run, or hung (paused with
 * SIGSTOP), it changes nothing for callers (200s, each within the bounded wait), shows in the
 * metrics and is logged once; entries live TTL + stale window in Redis and are served stale in it
 * while one refresh runs; a refused refresh removes the entry from Redis too.
 */
import { expect, it, vi } from 'vitest';
import { sendJson, page } from './support/canned-upstream.ts';
import { describeUnless } from './support/describe-unless.ts';
import { redisMissing } from './support/redis-server.ts';
import { PATH, TOKEN_A, ask, cacheOutcomes, logLines, report, redisPerTest, tierEvents, upstreamCalls } from './support/shared-tier-fixture.ts';
import type { TestService } from './support/facade.ts';

/** A Redis server and a service fixture on it, per test, stopped after each (support/shared-tier-fixture.ts). */
const setUp = redisPerTest();

const outageLines = (service: TestService) => logLines(service).filter((line) => String(line.message).startsWith('shared cache tier'));

/** `count` requests, each for another patient (all misses here), with the slowest one's duration. */
async function askMany(service: TestService, count: number, from: number): Promise<{ statuses: number[]; slowestMs: number }> {
  const statuses: number[] = [];
  let slowestMs = 0;
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    statuses.push((await ask(service, TOKEN_A, `/api/DiagnosticReport?patient=p${from + i}`)).status);
    slowestMs = Math.max(slowestMs, performance.now() - started);
  }
  return { statuses, slowestMs };
}

describeUnless(redisMissing)('the Redis tier failing', () => {
  it('changes nothing for callers when Redis stops mid-run: 200s, no wait, errors in /metrics, one log line', async () => {
    const { redis, fixture } = await setUp();
    const service = await fixture.service();
    expect((await askMany(service, 3, 0)).statuses).toEqual([200, 200, 200]);
    await service.cache!.settle();
    expect(await tierEvents(service)).toMatchObject({ store: 3 });
    await redis.stop();
    const { statuses, slowestMs } = await askMany(service, 20, 100);
    expect(statuses).toEqual(Array(20).fill(200));
    // Refused at once while disconnected: no request waited even the 50 ms bound (no timeout was
    // counted; the wall clock only rules out a hang, whatever else loads the machine).
    expect(slowestMs).toBeLessThan(1000);
    // The ones it answered before are still served from this process's memory.
    expect((await ask(service, TOKEN_A, '/api/DiagnosticReport?patient=p0')).status).toBe(200);
    await service.cache!.settle();
    const events = await tierEvents(service);
    expect(events.error).toBeGreaterThanOrEqual(1);
    expect((events.error ?? 0) + (events.skipped ?? 0)).toBeGreaterThanOrEqual(20);
    expect(events.timeout).toBeUndefined();
    expect(outageLines(service)).toMatchObject([{ level: 'warn', message: 'shared cache tier unavailable: skipped until it answers', tier: 'redis' }]);
    expect(logLines(service).filter((line) => line.level === 'error')).toEqual([]);
  });

  it('bounds each request’s wait on a hung Redis to CACHE_L2_TIMEOUT_MS, skips it once it has not answered for a second, and says when it is back', async () => {
    const { redis, fixture } = await setUp({ CACHE_L2_TIMEOUT_MS: '100' });
    const service = await fixture.service();
    expect((await askMany(service, 2, 0)).statuses).toEqual([200, 200]);
    redis.pause();
    try {
      const { statuses, slowestMs } = await askMany(service, 25, 100);
      expect(statuses).toEqual(Array(25).fill(200));
      // At most one wait of 100 ms for the read (writes do not delay answers); after a second without
      // an answer, none: the tier is skipped. Unbounded, a request would wait for the client's own
      // command timeout (1 s here) or forever; the margin is for a loaded machine.
      expect(slowestMs).toBeLessThan(800);
      const events = await tierEvents(service);
      expect(events.timeout).toBeGreaterThanOrEqual(1);
      expect(events.skipped).toBeGreaterThanOrEqual(5);
    } finally {
      redis.resume();
    }
    // Asked again a second after the last failure: it answers, and that is logged once too.
    await vi.waitFor(
      async () => {
        await ask(service, TOKEN_A, `/api/DiagnosticReport?patient=p${Date.now()}`);
        expect(outageLines(service).map((line) => line.message)).toEqual([
          'shared cache tier unavailable: skipped until it answers',
          'shared cache tier available again',
        ]);
      },
      { timeout: 5000, interval: 200 },
    );
    expect(outageLines(service)[0]).toMatchObject({ tier: 'redis', reason: 'timeout' });
  });

  it('starts and stops on a Redis hung from the start, answering within the bound meanwhile', async () => {
    const { redis, fixture } = await setUp({ CACHE_L2_TIMEOUT_MS: '100' });
    redis.pause();
    try {
      const service = await fixture.service();
      const { statuses, slowestMs } = await askMany(service, 5, 0);
      expect(statuses).toEqual(Array(5).fill(200));
      expect(slowestMs).toBeLessThan(800);
      const stopping = performance.now();
      await service.close();
      fixture.services.length = 0;
      expect(performance.now() - stopping).toBeLessThan(2000);
    } finally {
      redis.resume();
    }
  });
});

describeUnless(redisMissing)('the Redis tier’s TTL and stale window', () => {
  it('keeps an entry TTL + stale window, serves it stale to another service while one refresh runs, then lets it expire', async () => {
    const ttl = 1000;
    const stale = 2000;
    const { redis, fixture } = await setUp({ CACHE_TTL_MS: String(ttl), CACHE_STALE_MS: String(stale) });
    const first = await fixture.service();
    const storedAt = Date.now();
    expect((await ask(first, TOKEN_A)).reportStatus).toBe('final');
    await first.cache!.settle();
    const [entry] = await redis.dump();
    expect(entry!.pttl).toBeGreaterThan(ttl);
    expect(entry!.pttl).toBeLessThanOrEqual(ttl + stale);
    fixture.upstream.setHandler((_, res) => sendJson(res, 200, page([report('corrected')])));
    await sleepUntil(storedAt + ttl + 100);
    const second = await fixture.service();
    // Stale in Redis: served as it is, and refreshed once from the upstream.
    expect((await ask(second, TOKEN_A)).reportStatus).toBe('final');
    await second.cache!.settle();
    expect(upstreamCalls(fixture)).toBe(2);
    expect(cacheOutcomes(second)).toEqual(['stale']);
    expect((await ask(second, TOKEN_A)).reportStatus).toBe('corrected');
    // The refreshed entry replaced the stale one in Redis: a third service reads it fresh.
    const third = await fixture.service();
    expect((await ask(third, TOKEN_A)).reportStatus).toBe('corrected');
    expect(cacheOutcomes(third)).toEqual(['hit']);
    // Gone from Redis once its window has passed.
    await vi.waitFor(async () => expect(await redis.dump()).toEqual([]), { timeout: ttl + stale + 3000, interval: 100 });
    const fourth = await fixture.service();
    await ask(fourth, TOKEN_A);
    expect(cacheOutcomes(fourth)).toEqual(['miss']);
    expect(upstreamCalls(fixture)).toBe(3);
  });

  it('removes an entry from Redis when its refresh is refused (401), so no instance serves it again', async () => {
    const ttl = 300;
    const { redis, fixture } = await setUp({ CACHE_TTL_MS: String(ttl), CACHE_STALE_MS: '600000' });
    const first = await fixture.service();
    const storedAt = Date.now();
    await ask(first, TOKEN_A, PATH);
    await first.cache!.settle();
    expect(await redis.dump()).toHaveLength(1);
    fixture.upstream.setHandler((_, res) => sendJson(res, 401, { resourceType: 'OperationOutcome', issue: [] }));
    await sleepUntil(storedAt + ttl + 50);
    expect((await ask(first, TOKEN_A, PATH)).status).toBe(200); // stale, while the refresh runs
    await first.cache!.settle();
    expect(await redis.dump()).toEqual([]);
    const second = await fixture.service();
    expect((await ask(second, TOKEN_A, PATH)).status).toBe(401);
  });
});

async function sleepUntil(at: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
}
