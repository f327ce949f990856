/**
 * The shared tier on Workers: the Cache API (`caches.default`), one cache per Cloudflare data
 * centre, so an entry outlives the isolate that wrote it and serves every isolate there. Entries are
 * sealed and named by src/cache/sealed-tier.ts before they get here: the edge cache holds
 * ciphertext under opaque names, never a token or a patient's data.
 *
 * The Cache API has effect only on a Worker served from a custom domain: on `*.workers.dev`, in the
 * dashboard's preview and behind Cloudflare Access, put() and match() do nothing (Cloudflare's docs,
 * "Cache"), and every read is a miss.
 */
import type { SharedTier } from '../cache/shared-tier.ts';

/** The part of a Workers `Cache` used here (the full types would clash with the DOM's). */
export interface EdgeCache {
  match(request: Request): Promise<Response | undefined>;
  put(request: Request, response: Response): Promise<void>;
  delete(request: Request): Promise<boolean>;
}

/**
 * Entry names become URLs under this path of the Worker's own origin: the Cache API keys entries by
 * URL and keeps them in the zone's cache, so the URL stays on the zone as Cloudflare's examples do.
 * Requests to that path from outside reach the Worker (which answers 404), never the entries.
 */
const ENTRY_PATH = '/.facade-shared-tier/';

/** The tier on `cache`, its entries keyed under `origin` (the Worker's, from the isolate's first request). */
export function edgeCacheTier(cache: EdgeCache, origin: string): SharedTier {
  const requestFor = (key: string) => new Request(`${origin}${ENTRY_PATH}${encodeURIComponent(key)}`);
  return {
    name: 'edge-cache',
    async get(key) {
      const found = await cache.match(requestFor(key));
      return found === undefined ? undefined : new Uint8Array(await found.arrayBuffer());
    },
    async set(key, value, ttlMs) {
      // The edge forgets the entry after max-age (whole seconds, rounded up); the entry's own
      // storedAt decides freshness to the millisecond (src/cache/response-cache.ts).
      const headers = { 'content-type': 'application/octet-stream', 'cache-control': `max-age=${Math.max(1, Math.ceil(ttlMs / 1000))}` };
      await cache.put(requestFor(key), new Response(value, { headers }));
    },
    async delete(key) {
      await cache.delete(requestFor(key));
    },
  };
}

/** The data centre's default cache, where the runtime has one (workerd); undefined elsewhere. */
export function defaultEdgeCache(): EdgeCache | undefined {
  return (globalThis as { caches?: { default?: EdgeCache } }).caches?.default;
}
