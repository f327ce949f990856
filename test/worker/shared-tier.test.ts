/**
 * The shared tier on Workers, inside workerd: with CACHE_SECRET bound, answers are stored sealed in
 * the Cache API (`caches.default`), and a second Worker instance (a new isolate's createWorker(),
 * with an empty in-isolate cache) answers from it without calling the upstream; another token
 * cannot read it; without CACHE_SECRET the Cache API is left alone.
 */
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { createWorker } from '../../src/entry/worker.ts';
import { defaultEdgeCache } from '../../src/entry/edge-cache-tier.ts';
import { captureWorkerLog } from './worker-log.ts';

const CACHE_SECRET = 'worker-test-cache-secret-5a7c9e1b3d-0246';
const TOKEN_A = 'edge-token-a-7f3b1c';
const TOKEN_B = 'edge-token-b-92d0e4';
const env = { UPSTREAM_URL: inject('upstreamUrl'), UPSTREAM_TIMEOUT_MS: '5000', CACHE_SECRET, CACHE_TTL_MS: '60000' };

/** An execution context whose waitUntil work the test can wait for (the shared-tier write runs after the answer). */
function context() {
  const pending: Promise<unknown>[] = [];
  return { pending, ctx: { waitUntil: (work: Promise<unknown>) => void pending.push(work), passThroughOnException: () => {} } };
}

async function ask(
  worker: ReturnType<typeof createWorker>,
  path: string,
  token: string,
  bindings: Record<string, string> = env,
): Promise<{ response: Response; settled: Promise<unknown> }> {
  const { pending, ctx } = context();
  const response = await worker.fetch(new Request(`https://facade.test${path}`, { headers: { authorization: `Bearer ${token}` } }), bindings, ctx);
  return { response, settled: Promise.all(pending) };
}

async function tierEvents(worker: ReturnType<typeof createWorker>): Promise<Record<string, number>> {
  const text = await (await worker.fetch(new Request('https://facade.test/metrics'), env, context().ctx)).text();
  return Object.fromEntries(
    [...text.matchAll(/^facade_cache_tier_events_total\{tier="edge-cache",event="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]),
  );
}

describe('the Cache API tier in workerd', () => {
  const log = captureWorkerLog();
  afterEach(() => vi.restoreAllMocks());

  it('stores sealed entries that a second Worker instance answers from, without the upstream, for the same token only', async () => {
    const cache = defaultEdgeCache()!;
    const put = vi.spyOn(cache, 'put');
    const path = '/api/CareTeam?patient=3';
    const first = createWorker();
    const miss = await ask(first, path, TOKEN_A);
    expect(miss.response.status).toBe(200);
    const answer = await miss.response.text();
    await miss.settled;
    expect(put).toHaveBeenCalledTimes(1);
    const [request, stored] = put.mock.calls[0]!;
    // What the edge cache holds: ciphertext under an opaque name on the Worker's own origin.
    expect(new URL(request.url).origin).toBe('https://facade.test');
    const entry = await cache.match(new Request(request.url));
    expect(entry).toBeDefined();
    const bytes = new Uint8Array(await entry!.arrayBuffer());
    const seen = `${request.url}\n${new TextDecoder('latin1').decode(bytes)}\n${[...stored.headers].join('\n')}`;
    expect(answer).toContain('Patient/3');
    for (const secretish of [TOKEN_A, 'edge-token', 'Patient/3', 'patient=3', 'CareTeam', 'resourceType']) expect(seen).not.toContain(secretish);

    const second = createWorker();
    const hit = await ask(second, path, TOKEN_A);
    expect(hit.response.status).toBe(200);
    expect((await hit.response.text()).replace(/"id":"[0-9a-f]{32}"/, '')).toBe(answer.replace(/"id":"[0-9a-f]{32}"/, ''));
    expect(await tierEvents(second)).toEqual({ hit: 1 });
    const requests = log.requests().filter((line) => line.route === 'CareTeam.search');
    expect(requests.map((line) => [line.cache, line.upstreamCalls])).toEqual([
      ['miss', 1],
      ['hit', undefined],
    ]);

    // Another token on the same path: its own entry, never A's.
    const other = await ask(createWorker(), path, TOKEN_B);
    await other.settled;
    expect(log.requests().at(-1)).toMatchObject({ route: 'CareTeam.search', cache: 'miss' });
    expect(put).toHaveBeenCalledTimes(2);
    expect(put.mock.calls[1]![0].url).not.toBe(request.url);
  });

  it('leaves the Cache API alone without CACHE_SECRET, and refuses CACHE_REDIS_URL on Workers', async () => {
    const put = vi.spyOn(defaultEdgeCache()!, 'put');
    const { CACHE_SECRET: _unused, ...withoutSecret } = env;
    const plain = await ask(createWorker(), '/api/CareTeam?patient=4', TOKEN_A, withoutSecret);
    await plain.settled;
    expect(plain.response.status).toBe(200);
    expect(put).not.toHaveBeenCalled();
    const redis = await ask(createWorker(), '/api/CareTeam?patient=4', TOKEN_A, { ...env, CACHE_REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(redis.response.status).toBe(503);
    expect(log.errors()).toMatchObject([{ problems: 'CACHE_REDIS_URL: not on Workers (the shared tier here is the Cache API, on with CACHE_SECRET)' }]);
  });
});
