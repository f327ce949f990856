/**
 * The response cache in front of the upstream: serialized bodies in an LRU bounded by bytes and by
 * time, shared loads for concurrent identical misses, and a window in which a stale body is served
 * while one refresh runs. Only successful answers are ever stored. Keys are built by the caller
 * (see cache-key.ts): they name the caller by a keyed hash of the token, never the token itself.
 */
import { LRUCache } from 'lru-cache';

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
}

/**
 * What one entry costs beyond its body's bytes and its strings: the objects, the typed array and
 * its ArrayBuffer, the LRU node and map slot (measured: ~1,120 bytes held per tiny entry, of which
 * ~670 are the body, key and ETag counted above).
 */
const ENTRY_OVERHEAD_BYTES = 750;

interface Entry {
  body: StoredBody;
  storedAt: number;
  bytes: number;
}

/** Runs a promise past the end of the request that started it (Workers' `waitUntil`). */
export type KeepAlive = (work: Promise<unknown>) => void;

export class ResponseCache {
  readonly #entries: LRUCache<string, Entry>;
  readonly #loading = new Map<string, Promise<StoredBody>>();
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
   * in the background, kept alive by `keepAlive` where the runtime needs it), else from `load`.
   */
  async get(key: string, load: () => Promise<StoredBody>, keepAlive?: KeepAlive): Promise<{ body: StoredBody; outcome: CacheOutcome }> {
    const entry = this.#entries.get(key);
    const age = entry === undefined ? Infinity : this.#now() - entry.storedAt;
    if (entry && age < this.#options.ttlMs) return { body: entry.body, outcome: 'hit' };
    if (entry && age < this.#options.ttlMs + this.#options.staleMs) {
      if (!this.#loading.has(key)) {
        const refresh = this.#load(key, load).catch((error: unknown) => {
          if (this.#options.forgetOnRefreshError?.(error)) this.#entries.delete(key);
          this.#options.onRefreshError?.(error);
        });
        keepAlive?.(refresh);
      }
      return { body: entry.body, outcome: 'stale' };
    }
    if (entry) this.#entries.delete(key);
    const shared = this.#options.shareLoads === false ? undefined : this.#loading.get(key);
    return { body: await (shared ?? this.#load(key, load)), outcome: 'miss' };
  }

  /**
   * The body for `key` if a fresh entry holds it, at once (no promise): the hit path answers
   * without waiting a turn of the event loop. Anything else (stale, absent) is for get().
   */
  peek(key: string): StoredBody | undefined {
    const entry = this.#entries.get(key);
    return entry !== undefined && this.#now() - entry.storedAt < this.#options.ttlMs ? entry.body : undefined;
  }

  /** Resolves when the loads in progress now have ended (a stop lets background refreshes finish). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#loading.values()]);
  }

  /** The keys held now (diagnostics and tests: they hold no token, see cache-key.ts). */
  keys(): string[] {
    return [...this.#entries.keys()];
  }

  /** Entries and bytes held now. */
  stats(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#entries.calculatedSize };
  }

  /** Starts a load of `key` (the one others share, where loads are shared). Failures are not stored. */
  #load(key: string, load: () => Promise<StoredBody>): Promise<StoredBody> {
    const pending = load()
      .then((body) => {
        const ids = body.resourceIds?.reduce((sum, id) => sum + id.length + 16, 0) ?? 0;
        const bytes = body.bytes.byteLength + 2 * (key.length + body.etag.length + ids) + ENTRY_OVERHEAD_BYTES;
        // A body larger than the whole cache is answered but not kept.
        if (bytes <= this.#options.maxBytes) this.#entries.set(key, { body, storedAt: this.#now(), bytes });
        return body;
      })
      .finally(() => {
        if (this.#loading.get(key) === pending) this.#loading.delete(key);
      });
    this.#loading.set(key, pending);
    return pending;
  }
}
