/**
 * The response cache's rules with an injected clock: freshness, the stale window and its one
 * refresh, expiry, forgetting on refusal, unshared loads (Workers), and what the byte bound counts.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.ts';
import { responseCacheFor } from '../src/cache/cache-config.ts';
import { ResponseCache, type StoredBody } from '../src/cache/response-cache.ts';
import { FacadeError } from '../src/errors.ts';
import { silentLogger } from '../src/log.ts';
import { Metrics } from '../src/metrics.ts';

const body = (text: string): StoredBody => ({ bytes: new TextEncoder().encode(text), bundleId: undefined, etag: `W/"${text}"` });

function cacheAt(clock: { now: number }, options: Partial<ConstructorParameters<typeof ResponseCache>[0]> = {}) {
  return new ResponseCache({ maxBytes: 1_000_000, ttlMs: 100, staleMs: 50, now: () => clock.now, ...options });
}

/** A load that counts its calls and answers `v<call number>`. */
function counter() {
  let calls = 0;
  const load = async () => {
    calls += 1;
    return body(`v${calls}`);
  };
  return { load, calls: () => calls };
}

describe('ResponseCache', () => {
  it('answers fresh entries, then stale ones while one refresh runs, then loads again after the window', async () => {
    const clock = { now: 0 };
    const cache = cacheAt(clock);
    const source = counter();
    expect(await cache.get('k', source.load)).toEqual({ body: body('v1'), outcome: 'miss' });
    clock.now = 99;
    expect((await cache.get('k', source.load)).outcome).toBe('hit');
    clock.now = 120;
    const stale = await cache.get('k', source.load);
    expect(stale).toEqual({ body: body('v1'), outcome: 'stale' });
    await Promise.resolve();
    expect(source.calls()).toBe(2);
    clock.now = 130;
    expect(await cache.get('k', source.load)).toEqual({ body: body('v2'), outcome: 'hit' });
    clock.now = 130 + 150;
    expect(await cache.get('k', source.load)).toEqual({ body: body('v3'), outcome: 'miss' });
  });

  it('forgets a stale entry whose refresh was refused, and keeps one whose refresh failed upstream', async () => {
    const clock = { now: 0 };
    const forget = (error: unknown) => error instanceof FacadeError && error.status === 401;
    const cache = cacheAt(clock, { forgetOnRefreshError: forget });
    await cache.get('refused', async () => body('a'));
    await cache.get('failed', async () => body('b'));
    clock.now = 120;
    await cache.get('refused', () => Promise.reject(new FacadeError('upstream-refused-token')));
    await cache.get('failed', () => Promise.reject(new FacadeError('upstream-error')));
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache.keys().sort()).toEqual(['failed']);
  });

  it('shares a load between concurrent misses, unless told not to (Workers)', async () => {
    for (const [shareLoads, expected] of [
      [true, 1],
      [false, 3],
    ] as const) {
      const source = counter();
      const cache = cacheAt({ now: 0 }, { shareLoads });
      await Promise.all([1, 2, 3].map(() => cache.get('k', source.load)));
      expect(source.calls()).toBe(expected);
    }
  });

  it('counts keys, ETags and a per-entry overhead against the byte bound, not bodies alone', async () => {
    const cache = cacheAt({ now: 0 });
    const key = 'caller|["Route",null,[]]';
    await cache.get(key, async () => body(''));
    expect(cache.stats().bytes).toBeGreaterThanOrEqual(2 * (key.length + 'W/""'.length) + 300);
  });

  it('is not made for a zero TTL or a zero size: the cache is then off', () => {
    expect(() => new ResponseCache({ maxBytes: 1000, ttlMs: 0, staleMs: 0 })).toThrow();
    const off = (env: Record<string, string>) => responseCacheFor(parseConfig(env), new Metrics(), silentLogger);
    expect(off({ CACHE_TTL_MS: '0' })).toBeUndefined();
    expect(off({ CACHE_MAX_BYTES: '0' })).toBeUndefined();
    expect(off({ CACHE_ENABLED: 'false' })).toBeUndefined();
    expect(off({})).toBeInstanceOf(ResponseCache);
  });
});
