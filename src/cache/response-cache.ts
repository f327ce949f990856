/**
 * The response cache in front of the upstream: serialized bodies in an LRU bounded by bytes and by
 * time, shared loads for concurrent identical misses, and a window in which a stale body is served
 * while one refresh runs. Only successful answers are ever stored. Keys are built by the caller
 * (see cache-key.ts): they name the caller by a keyed hash of the token, never the token itself.
 * Behind the LRU, optionally, a tier shared with other processes and instances (sealed-tier.ts),
 * asked before the upstream and written after it, with the same freshness rules.
 */
import { LRUCache } from 'lru-cache';
import type { SealedTier } from './sealed-tier.ts';
import type { StoredEntry } from './stored-body-codec.ts';

/** A stored answer: the serialized body as UTF-8 bytes, and where a fresh Bundle id goes (spec 2.1). */
export interface StoredBody {
  /** The body every response sends (src/cache/cache-key.ts renderBody); shared, never changed once stored. */
  bytes: Uint8Array<ArrayBuffer>;
  /** Where the Bundle id is in `bytes`, [start, end); undefined for bodies without one (arrays, records). */
  bundleId: { start: number; end: number } | undefined;
  /** Weak ETag over the body without its per-response id. */
  etag: string;
  /** `Type/id` of the records in the body, kept so a cached answer still has its audit line. */
  resourceIds?: readonly string[];
}

/** How a request was answered: from a fresh entry, a stale one, a new load, or with the cache off. */
export type CacheOutcome = 'hit' | 'stale' | 'miss' | 'bypass';

export interface ResponseCacheOptions {
  /** Bound on what entries hold: bodies (bytes), keys and ETags (UTF-16), plus a per-entry overhead. */
  maxBytes: number;
  /** How long an entry is fresh (> 0). */
  ttlMs: number;
  /** How long after that it may still be served while one refresh runs (0: never stale). */
  staleMs: number;
  /**
   * Whether concurrent identical misses share one load. On Workers they must not: a load's I/O
   * belongs to the request that started it and dies with it, which would leave the others waiting.
   */
  shareLoads?: boolean;
  now?: () => number;
  /** Told when the LRU drops an entry to stay under `maxBytes` (for metrics). */
  onEvict?: () => void;
  /** Told when a background refresh fails. */
  onRefreshError?: (error: unknown) => void;
  /**
   * Whether a failed refresh means the stale entry must go (the upstream refused the token, or the
   * record is gone); other failures keep serving it until its window ends.
   */
  forgetOnRefreshError?: (error: unknown) => boolean;
  /** The tier shared beyond this process (Redis, the edge cache), asked on a miss here. */
  shared?: SealedTier;
}

/**
 * What one entry costs beyond its body's bytes and its strings: the objects, the typed array and
 * its ArrayBuffer, the LRU node and map slot (measured: ~1,120 bytes held per tiny entry, of which
 * ~670 are the body, key and ETag counted above).
 */
const ENTRY_OVERHEAD_BYTES = 750;

interface Entry extends StoredEntry {
  bytes: number;
}

/** A load's result: the entry, and whether it came from the shared tier (else from the upstream). */
interface Loaded extends StoredEntry {
  fromShared: boolean;
}

/** Runs a promise past the end of the request that started it (Workers' `waitUntil`). */
export type KeepAlive = (work: Promise<unknown>) => void;

export class ResponseCache {
  readonly #entries: LRUCache<string, Entry>;
  readonly #loading = new Map<string, Promise<Loaded>>();
  readonly #options: ResponseCacheOptions;
  readonly #now: () => number;

  constructor(options: ResponseCacheOptions) {
    if (!(options.ttlMs > 0)) throw new Error('ResponseCache: ttlMs must be positive (a zero TTL means no cache)');
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#entries = new LRUCache<string, Entry>({
      maxSize: options.maxBytes,
      sizeCalculation: (entry) => entry.bytes,
      // The LRU forgets an entry when its stale window ends too; freshness is judged in get().
      ttl: options.ttlMs + options.staleMs,
      ttlAutopurge: false,
      // No cached clock: lru-cache refreshes it with a timer, which workerd drops with the request.
      ttlResolution: 0,
      perf: { now: this.#now },
      dispose: (_entry, _key, reason) => {
        if (reason === 'evict') options.onEvict?.();
      },
    });
  }

  /**
   * The body for `key`: from the cache when fresh (or stale within the window, refreshing it once
   * in the background, kept alive by `keepAlive` where the runtime needs it), else from the shared
   * tier under the same rules, else from `load`. `token` is the caller's (undefined: none): the
   * shared tier seals entries for it, and it is kept nowhere.
   */
  async get(key: string, load: () => Promise<StoredBody>, keepAlive?: KeepAlive, token?: string): Promise<{ body: StoredBody; outcome: CacheOutcome }> {
    const entry = this.#entries.get(key);
    const age = entry === undefined ? Infinity : this.#now() - entry.storedAt;
    if (entry && age < this.#options.ttlMs) return { body: entry.body, outcome: 'hit' };
    if (entry && age < this.#window()) {
      this.#refresh(key, load, keepAlive, token);
      return { body: entry.body, outcome: 'stale' };
    }
    if (entry) this.#entries.delete(key);
    const shared = this.#options.shareLoads === false ? undefined : this.#loading.get(key);
    const loaded = await (shared ?? this.#load(key, () => this.#fromSharedOrUpstream(key, load, keepAlive, token, this.#window())));
    if (!loaded.fromShared) return { body: loaded.body, outcome: 'miss' };
    if (this.#now() - loaded.storedAt < this.#options.ttlMs) return { body: loaded.body, outcome: 'hit' };
    // Stale in the shared tier too: served, and refreshed here once, as a stale entry of our own would be.
    this.#refresh(key, load, keepAlive, token);
    return { body: loaded.body, outcome: 'stale' };
  }

  /**
   * The body for `key` if a fresh entry of this process holds it, at once (no promise): the hit path
   * answers without waiting a turn of the event loop. Anything else (stale, absent, only in the
   * shared tier) is for get().
   */
  peek(key: string): StoredBody | undefined {
    const entry = this.#entries.get(key);
    return entry !== undefined && this.#now() - entry.storedAt < this.#options.ttlMs ? entry.body : undefined;
  }

  /** Resolves when the loads and shared-tier writes in progress now have ended (a stop lets them finish). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#loading.values()]);
    await this.#options.shared?.settle();
  }

  /** The keys held now (diagnostics and tests: they hold no token, see cache-key.ts). */
  keys(): string[] {
    return [...this.#entries.keys()];
  }

  /** Entries and bytes held now. */
  stats(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#entries.calculatedSize };
  }

  /** How long after it was stored an entry may still be served: TTL plus stale window. */
  #window(): number {
    return this.#options.ttlMs + this.#options.staleMs;
  }

  /** Starts the one background refresh of a stale entry, unless one runs; a refusal forgets the entry everywhere. */
  #refresh(key: string, load: () => Promise<StoredBody>, keepAlive: KeepAlive | undefined, token: string | undefined): void {
    if (this.#loading.has(key)) return;
    // Another instance may have refreshed it already: only a fresh shared entry saves the upstream call.
    const refresh = this.#load(key, () => this.#fromSharedOrUpstream(key, load, keepAlive, token, this.#options.ttlMs)).catch((error: unknown) => {
      if (this.#options.forgetOnRefreshError?.(error)) {
        this.#entries.delete(key);
        const forgetting = this.#options.shared?.forget(key);
        if (forgetting) keepAlive?.(forgetting);
      }
      this.#options.onRefreshError?.(error);
    });
    keepAlive?.(refresh);
  }

  /**
   * The shared tier's entry when it has one younger than `maxAgeMs` for this caller, else the
   * upstream's answer, then written to the shared tier in the background (never delaying the answer).
   */
  #fromSharedOrUpstream(
    key: string,
    load: () => Promise<StoredBody>,
    keepAlive: KeepAlive | undefined,
    token: string | undefined,
    maxAgeMs: number,
  ): Promise<Loaded> {
    const tier = this.#options.shared;
    const fromUpstream = () =>
      load().then((body) => {
        const stored = { body, storedAt: this.#now() };
        if (tier) {
          // Started here whatever the runtime; kept alive past the answer where the runtime needs it.
          const writing = tier.write(key, token, stored, this.#window());
          keepAlive?.(writing);
        }
        return { ...stored, fromShared: false };
      });
    // Without a tier, no extra turn of the event loop before the load: a refresh lands as soon as its load does.
    if (tier === undefined) return fromUpstream();
    return tier.read(key, token, maxAgeMs).then((found) => (found ? { ...found, fromShared: true } : fromUpstream()));
  }

  /** Starts a load of `key` (the one others share, where loads are shared). Failures are not stored. */
  #load(key: string, load: () => Promise<Loaded>): Promise<Loaded> {
    const pending = load()
      .then((loaded) => {
        const { body, storedAt } = loaded;
        const ids = body.resourceIds?.reduce((sum, id) => sum + id.length + 16, 0) ?? 0;
        const bytes = body.bytes.byteLength + 2 * (key.length + body.etag.length + ids) + ENTRY_OVERHEAD_BYTES;
        // A body larger than the whole cache is answered but not kept; one from the shared tier keeps its age.
        if (bytes <= this.#options.maxBytes) this.#entries.set(key, { body, storedAt, bytes }, { ttl: Math.max(1, storedAt + this.#window() - this.#now()) });
        return loaded;
      })
      .finally(() => {
        if (this.#loading.get(key) === pending) this.#loading.delete(key);
      });
    this.#loading.set(key, pending);
    return pending;
  }
}
