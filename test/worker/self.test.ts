/**
 * The deployed shape of the Worker: wrangler.toml's `main` with its bindings (vars plus the test
 * upstream), called as a service inside workerd. Requests here are separate requests to the isolate,
 * so what spans requests is exercised: the per-isolate cache, its TTL, concurrency, a dropped caller.
 */
import { SELF } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { captureWorkerLog } from './worker-log.ts';

const base = 'http://facade.test';

async function cacheEvents(outcome: string): Promise<number> {
  const text = await (await SELF.fetch(`${base}/metrics`)).text();
  return Number(new RegExp(`facade_cache_events_total\\{outcome="${outcome}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
}

describe('the Worker as wrangler.toml deploys it', () => {
  const log = captureWorkerLog();

  it('answers concurrent identical requests, each from its own load', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => SELF.fetch(`${base}/api/CareTeam?patient=3&access_token=concurrent`)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    const bodies = await Promise.all(answers.map(async (answer) => (await answer.text()).replace(/"id":"[^"]+"/, '')));
    expect(new Set(bodies).size).toBe(1);
    // No load is shared between requests on Workers: each miss makes its own upstream call. On a busy
    // machine a request may start after the first answer was stored and hit it: that is no sharing either.
    const outcomes = log.requests().map(({ cache, upstreamCalls }) => ({ cache, upstreamCalls }));
    expect(outcomes).toHaveLength(8);
    expect(outcomes[0]).toEqual({ cache: 'miss', upstreamCalls: 1 });
    for (const outcome of outcomes)
      expect([
        { cache: 'miss', upstreamCalls: 1 },
        { cache: 'hit', upstreamCalls: undefined },
      ]).toContainEqual(outcome);
    expect(log.audits().map(({ patient, outcome }) => ({ patient, outcome }))).toEqual(Array(8).fill({ patient: '3', outcome: 'allowed' }));
    expect(JSON.stringify(log.lines)).not.toContain('concurrent');
  });

  it('still answers a query whose first caller went away mid-request', async () => {
    const path = `${base}/Encounter?patient=2&access_token=dropped-caller`;
    const controller = new AbortController();
    const dropped = SELF.fetch(path, { signal: controller.signal }).catch(() => undefined);
    // The second caller asks while the first one's upstream load is under way, then the first leaves.
    const second = SELF.fetch(path);
    await new Promise((resolve) => setTimeout(resolve, 2));
    controller.abort();
    await dropped;
    expect((await second).status).toBe(200);
    expect((await SELF.fetch(path)).status).toBe(200);
    // The load the first caller started was finished and kept: the last request is a hit.
    expect(log.errors()).toEqual([]);
    expect(log.requests().at(-1)).toMatchObject({ route: 'Encounter.search', status: 200, cache: 'hit' });
  });

  it('expires a cached answer after its TTL (the clock runs between requests)', async () => {
    const path = `${base}/api/Specimen?patient=1&access_token=ttl-test`;
    const misses = await cacheEvents('miss');
    await SELF.fetch(path);
    await SELF.fetch(path);
    expect(await cacheEvents('miss')).toBe(misses + 1);
    const stored = Date.now();
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(stored + 450), { timeout: 5000, interval: 50 });
    await SELF.fetch(path);
    expect(await cacheEvents('miss')).toBe(misses + 2);
    const specimenSearches = log.requests().filter((line) => line.route === 'Specimen.search');
    expect(specimenSearches.map((line) => line.cache)).toEqual(['miss', 'hit', 'miss']);
  });
});
