/**
 * The shared tier's parts without a server (names and sealing: entry-cipher.test.ts): the stored
 * entry's encoding (stored-body-codec.ts), callers named alike on Node and Web Crypto under one
 * CACHE_SECRET, the bounded wait and once-per-outage log (sealed-tier.ts), the response cache's
 * rules across both tiers, and the configuration's checks.
 */
import { describe, expect, it } from 'vitest';
import { webHashing } from '../src/ports/hashing.ts';
import { nodeHashing } from '../src/entry/node/cache/node-hashing.ts';
import { ResponseCache, type StoredBody } from '../src/cache/response-cache.ts';
import { SealedTier } from '../src/cache/sealed-tier.ts';
import type { SharedTier, TierEvent } from '../src/cache/shared-tier.ts';
import { decodeStoredEntry, encodeStoredEntry } from '../src/cache/stored-body-codec.ts';
import { type ConfigError, parseConfig } from '../src/config.ts';
import type { Logger } from '../src/log.ts';

const SECRET = 'unit-test-cache-secret-0123456789abcdef';
const KEY = 'callerhash|DiagnosticReport.search|patient=123';
const bytes = (text: string) => new TextEncoder().encode(text);
const body = (text: string): StoredBody => ({ bytes: bytes(text), bundleId: undefined, etag: `W/"${text}"` });

/** A tier in memory; `hang` makes every operation wait forever, `fail` reject at once. */
function memoryTier(): SharedTier & { entries: Map<string, Uint8Array<ArrayBuffer>>; mode: 'up' | 'hang' | 'fail'; calls: number } {
  const entries = new Map<string, Uint8Array<ArrayBuffer>>();
  const tier = {
    name: 'memory',
    entries,
    mode: 'up' as 'up' | 'hang' | 'fail',
    calls: 0,
    async run<T>(work: () => T): Promise<T> {
      tier.calls += 1;
      if (tier.mode === 'hang') return new Promise<T>(() => {});
      if (tier.mode === 'fail') throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379 (redis://:hunter2@…)'), { code: 'ECONNREFUSED' });
      return work();
    },
    get: (key: string) => tier.run(() => entries.get(key)),
    set: (key: string, value: Uint8Array<ArrayBuffer>) => tier.run(() => void entries.set(key, value)),
    delete: (key: string) => tier.run(() => void entries.delete(key)),
  };
  return tier;
}

function sealedTier(tier: SharedTier, clock = { now: 0 }) {
  const logged: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const events: TierEvent[] = [];
  const logger: Logger = (level, message, fields) => void logged.push({ level, message, fields });
  const sealed = new SealedTier({ tier, secret: SECRET, timeoutMs: 20, logger, onEvent: (event) => void events.push(event), now: () => clock.now });
  return { sealed, logged, events };
}

describe('the stored entry codec', () => {
  it("gives back what it was given, the Bundle id's place, record ids and all of Unicode included", () => {
    const bundle = '{"resourceType":"Bundle","id":"0123456789abcdef0123456789abcdef","entry":[{"name":"Zoë 👩‍⚕️ \\"q\\""}]}';
    const entries = [
      {
        body: { bytes: bytes(bundle), bundleId: { start: 31, end: 63 }, etag: 'W/"abc"', resourceIds: ['Condition/9', 'Patient/1'] },
        storedAt: 1_700_000_000_123,
      },
      { body: { bytes: bytes('[]'), bundleId: undefined, etag: 'W/"e"' }, storedAt: 5 },
    ];
    for (const entry of entries) expect(decodeStoredEntry(encodeStoredEntry(entry))).toEqual(entry);
  });

  it('refuses a Bundle id placed outside the body, and an entry of the earlier layout', () => {
    const outside = encodeStoredEntry({ body: { bytes: bytes('{"a":1}'), bundleId: { start: 2, end: 40 }, etag: 'W/"x"' }, storedAt: 1 });
    expect(decodeStoredEntry(outside)).toBeUndefined();
    const head = bytes(JSON.stringify({ v: 1, storedAt: 1, etag: 'W/"x"', beforeBytes: 2, afterBytes: null }));
    const earlier = new Uint8Array([0, 0, 0, head.length, ...head, ...bytes('[]')]);
    expect(decodeStoredEntry(earlier)).toBeUndefined();
  });

  it('refuses bytes that are no whole entry', () => {
    const encoded = encodeStoredEntry({ body: body('{"a":1}'), storedAt: 1 });
    for (const broken of [encoded.subarray(0, encoded.length - 1), encoded.subarray(0, 3), bytes('{"v":1}'), new Uint8Array([0, 0, 0, 9, 255, 255])]) {
      expect(decodeStoredEntry(broken)).toBeUndefined();
    }
  });
});

describe('callers named under CACHE_SECRET', () => {
  it('are named alike by Node’s hashing and Web Crypto’s, on every instance; without it, per process', async () => {
    const name = nodeHashing(SECRET).callerOf('token-a');
    expect(await webHashing(SECRET).callerOf('token-a')).toBe(name);
    expect(nodeHashing(SECRET).callerOf('token-a')).toBe(name);
    expect(nodeHashing(SECRET).callerOf('token-b')).not.toBe(name);
    expect(nodeHashing().callerOf('token-a')).not.toBe(nodeHashing().callerOf('token-a'));
    expect(await webHashing().callerOf('token-a')).not.toBe(await webHashing().callerOf('token-a'));
  });
});

describe('SealedTier', () => {
  it('waits at most its timeout for a hung tier, skips it for a second once it has not answered for one, and logs the outage once and its end once', async () => {
    const tier = memoryTier();
    const clock = { now: 0 };
    const { sealed, logged, events } = sealedTier(tier, clock);
    tier.mode = 'hang';
    clock.now = 500; // timeouts, but it answered (was made) half a second ago: waited for, not skipped
    const started = performance.now();
    expect(await sealed.read(KEY, 'token-a', 1000)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(200);
    clock.now = 1000; // a second without an answer: down
    for (let i = 0; i < 5; i += 1) expect(await sealed.read(KEY, 'token-a', 1000)).toBeUndefined();
    expect(tier.calls).toBe(2);
    tier.mode = 'fail';
    clock.now = 2000;
    expect(await sealed.read(KEY, 'token-a', 1000)).toBeUndefined();
    expect(events).toEqual(['timeout', 'timeout', 'skipped', 'skipped', 'skipped', 'skipped', 'error']);
    tier.mode = 'up';
    clock.now = 3000;
    await sealed.write(KEY, 'token-a', { body: body('b'), storedAt: 3000 }, 1000);
    expect((await sealed.read(KEY, 'token-a', 1000))?.body).toEqual(body('b'));
    expect(logged).toEqual([
      { level: 'warn', message: 'shared cache tier unavailable: skipped until it answers', fields: { tier: 'memory', reason: 'timeout' } },
      { level: 'info', message: 'shared cache tier available again', fields: { tier: 'memory', downMs: 2000 } },
    ]);
    expect(JSON.stringify(logged)).not.toContain('hunter2');
  });

  it('takes timeouts between answers for a loaded process, not for an outage, and skips at once on an error', async () => {
    const tier = memoryTier();
    const clock = { now: 0 };
    const { sealed, logged, events } = sealedTier(tier, clock);
    for (const mode of ['hang', 'hang', 'up', 'hang', 'hang', 'up', 'fail', 'up'] as const) {
      tier.mode = mode;
      clock.now += 400;
      await sealed.read(KEY, 'token-a', 1000);
    }
    expect(events).toEqual(['timeout', 'timeout', 'miss', 'timeout', 'timeout', 'miss', 'error', 'skipped']);
    expect(logged.map((line) => line.fields?.reason)).toEqual(['ECONNREFUSED']);
  });

  it('takes an entry older than asked for, or not this caller’s, as a miss', async () => {
    const tier = memoryTier();
    const clock = { now: 100 };
    const { sealed, events } = sealedTier(tier, clock);
    await sealed.write(KEY, 'token-a', { body: body('b'), storedAt: 100 }, 1000);
    clock.now = 150;
    expect(await sealed.read(KEY, 'token-a', 50)).toBeUndefined();
    expect(await sealed.read(KEY, 'token-b', 1000)).toBeUndefined();
    expect(await sealed.read(KEY, 'token-a', 51)).toEqual({ body: body('b'), storedAt: 100 });
    expect(events).toEqual(['store', 'miss', 'miss', 'hit']);
  });

  it('counts an entry it cannot seal as unsealable and logs that once, the tier untouched and no caller failed', async () => {
    const tier = memoryTier();
    const logged: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
    const events: TierEvent[] = [];
    const sealed = new SealedTier({
      tier,
      secret: SECRET,
      timeoutMs: 20,
      logger: (level, message, fields) => void logged.push({ level, message, fields }),
      onEvent: (event) => void events.push(event),
      sealing: () => ({
        nameOf: (key) => `name-${key.length}`,
        seal: () => {
          throw new RangeError('too long for the key derivation: secret-token-value');
        },
        open: () => undefined,
      }),
    });
    await sealed.write(KEY, 'secret-token-value', { body: body('b'), storedAt: 1 }, 1000);
    await sealed.write(KEY, 'secret-token-value', { body: body('b'), storedAt: 1 }, 1000);
    expect(events).toEqual(['unsealable', 'unsealable']);
    expect(tier.calls).toBe(0);
    expect(logged).toEqual([
      { level: 'error', message: 'shared cache tier: an entry could not be sealed (logged once)', fields: { tier: 'memory', reason: 'RangeError' } },
    ]);
    expect(JSON.stringify(logged)).not.toContain('secret-token-value');
  });
});

describe('ResponseCache over a shared tier', () => {
  function caches(tier: SharedTier, clock: { now: number }) {
    const { sealed } = sealedTier(tier, clock);
    const forget = (error: unknown) => error === 'refused';
    const cache = () =>
      new ResponseCache({ maxBytes: 1_000_000, ttlMs: 100, staleMs: 100, now: () => clock.now, shared: sealed, forgetOnRefreshError: forget });
    return { sealed, cache };
  }

  it('answers another process’s fresh entry as a hit, and its stale one as stale while one refresh runs', async () => {
    const tier = memoryTier();
    const clock = { now: 0 };
    const { cache } = caches(tier, clock);
    let loads = 0;
    const load = async () => {
      loads += 1;
      return body(`v${loads}`);
    };
    const first = cache();
    expect(await first.get('k', load, undefined, 'token-a')).toEqual({ body: body('v1'), outcome: 'miss' });
    await first.settle();
    clock.now = 50;
    expect(await cache().get('k', load, undefined, 'token-a')).toEqual({ body: body('v1'), outcome: 'hit' });
    clock.now = 150; // past the TTL, within the stale window
    const third = cache();
    expect(await third.get('k', load, undefined, 'token-a')).toEqual({ body: body('v1'), outcome: 'stale' });
    await third.settle();
    expect(loads).toBe(2);
    expect(await third.get('k', load, undefined, 'token-a')).toEqual({ body: body('v2'), outcome: 'hit' });
    clock.now = 160;
    expect(await cache().get('k', load, undefined, 'token-a')).toEqual({ body: body('v2'), outcome: 'hit' });
    clock.now = 150 + 200; // past the refreshed entry's window too
    expect(await cache().get('k', load, undefined, 'token-a')).toEqual({ body: body('v3'), outcome: 'miss' });
  });

  it('loads anew when the shared entry under its key was sealed for another token (a collision)', async () => {
    const tier = memoryTier();
    const { cache } = caches(tier, { now: 0 });
    const first = cache();
    await first.get('k', async () => body('of a'), undefined, 'token-a');
    await first.settle();
    expect(await cache().get('k', async () => body('of b'), undefined, 'token-b')).toEqual({ body: body('of b'), outcome: 'miss' });
  });

  it('removes a stale entry from the shared tier when its refresh is refused', async () => {
    const tier = memoryTier();
    const clock = { now: 0 };
    const { sealed, cache } = caches(tier, clock);
    const first = cache();
    await first.get('k', async () => body('v1'), undefined, 'token-a');
    await first.settle();
    expect(tier.entries.size).toBe(1);
    clock.now = 150;
    expect((await cache().get('k', () => Promise.reject('refused'), undefined, 'token-a')).outcome).toBe('stale');
    await new Promise((resolve) => setTimeout(resolve, 10));
    await sealed.settle();
    expect(tier.entries.size).toBe(0);
  });

  it('lets concurrent misses share one shared-tier read and one load', async () => {
    const tier = memoryTier();
    const { cache } = caches(tier, { now: 0 });
    let loads = 0;
    const shared = cache();
    const load = async () => {
      loads += 1;
      return body(`v${loads}`);
    };
    await Promise.all(Array.from({ length: 5 }, () => shared.get('k', load, undefined, 'token-a')));
    await shared.settle();
    expect(loads).toBe(1);
    expect(tier.calls).toBe(2); // one read, one write
  });
});

describe('the configuration of the shared tier', () => {
  const problems = (env: Record<string, string>) => {
    try {
      parseConfig(env);
      return [];
    } catch (error) {
      return (error as ConfigError).problems;
    }
  };

  it('needs CACHE_SECRET with CACHE_REDIS_URL, of 32 bytes at least, and a redis URL', () => {
    expect(problems({ CACHE_REDIS_URL: 'redis://127.0.0.1:6379' })).toEqual(['CACHE_SECRET: required with CACHE_REDIS_URL, the same on every instance']);
    expect(problems({ CACHE_REDIS_URL: 'redis://cache:6379', CACHE_SECRET: 'short' })).toEqual([
      'CACHE_SECRET: must be at least 32 bytes (openssl rand -base64 32)',
    ]);
    expect(problems({ CACHE_REDIS_URL: 'http://cache:6379', CACHE_SECRET: SECRET })).toEqual(['CACHE_REDIS_URL: must be a redis:// or rediss:// URL']);
    expect(problems({ CACHE_L2_TIMEOUT_MS: '0' })).toEqual(['CACHE_L2_TIMEOUT_MS: must be a whole number from 1 to 10000']);
    const config = parseConfig({ CACHE_REDIS_URL: 'rediss://:pw@cache.internal:6380/2', CACHE_SECRET: SECRET });
    expect(config.CACHE_L2_TIMEOUT_MS).toBe(50);
  });
});
