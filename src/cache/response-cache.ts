/**
 * The response cache in front of the upstream: serialized bodies in an LRU bounded by bytes and by
 * time, shared loads for concurrent identical misses, and a window in which a stale body is served
 * while one refresh runs. Only successful answers are ever stored. Keys are built by the caller
 * (see cache-key.ts): they name the caller by a keyed hash of the token, never the token itself.
 */
import { LRUCache } from 'lru-cache';

/** A stored answer: the serialized body, split where a fresh Bundle id goes (spec 2.1). */
export interface StoredBody {
  /** Everything before the Bundle id, or the whole body when it has no id to refresh. */
  before: string;
  /** Everything after the Bundle id; undefined for bodies without one (arrays, records). */
  after: string | undefined;
  /** Weak ETag over the body without its per-response id. */
  etag: string;
}

/** How a request was answered: from a fresh entry, a stale one, a new load, or with the cache off. */
export type CacheOutcome = 'hit' | 'stale' | 'miss' | 'bypass';

export interface ResponseCacheOptions {
  /** Total size bound of the stored bodies (UTF-16 code units counted as 2 bytes). */
  maxBytes: number;
  /** How long an entry is fresh. */
  ttlMs: number;
  /** How long after that it may still be served while one refresh runs (0: never stale). */
  staleMs: number;
  now?: () => number;
  /** Told when the LRU drops an entry to stay under `maxBytes` (for metrics). */
  onEvict?: () => void;
  /** Told when a background refresh fails (the stale entry is kept until its window ends). */
  onRefreshError?: (error: unknown) => void;
}

interface Entry {
  body: StoredBody;
  storedAt: number;
  bytes: number;
}

export class ResponseCache {
  readonly #entries: LRUCache<string, Entry>;
  readonly #loading = new Map<string, Promise<StoredBody>>();
  readonly #options: ResponseCacheOptions;
  readonly #now: () => number;

  constructor(options: ResponseCacheOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#entries = new LRUCache<string, Entry>({
      maxSize: options.maxBytes,
      sizeCalculation: (entry) => Math.max(1, entry.bytes),
      // The LRU forgets an entry when its stale window ends too; freshness is judged in get().
      ttl: options.ttlMs + options.staleMs,
      ttlAutopurge: false,
      perf: { now: this.#now },
      dispose: (_entry, _key, reason) => {
        if (reason === 'evict') options.onEvict?.();
      },
    });
  }

  /** The body for `key`: from the cache when fresh (or stale within the window), else from `load`. */
  async get(key: string, load: () => Promise<StoredBody>): Promise<{ body: StoredBody; outcome: CacheOutcome }> {
    const entry = this.#entries.get(key);
    if (entry && this.#now() - entry.storedAt < this.#options.ttlMs) return { body: entry.body, outcome: 'hit' };
    if (entry) {
      if (!this.#loading.has(key)) {
        this.#load(key, load).catch((error: unknown) => this.#options.onRefreshError?.(error));
      }
      return { body: entry.body, outcome: 'stale' };
    }
    const pending = this.#loading.get(key) ?? this.#load(key, load);
    return { body: await pending, outcome: 'miss' };
  }

  /** The keys held now (diagnostics and tests: they hold no token, see cache-key.ts). */
  keys(): string[] {
    return [...this.#entries.keys()];
  }

  /** Entries and bytes held now. */
  stats(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#entries.calculatedSize };
  }

  /** Starts the one load of `key`; others asking meanwhile share it. Failures are not stored. */
  #load(key: string, load: () => Promise<StoredBody>): Promise<StoredBody> {
    const pending = load()
      .then((body) => {
        const bytes = 2 * (body.before.length + (body.after?.length ?? 0));
        // A body larger than the whole cache is answered but not kept.
        if (bytes <= this.#options.maxBytes) this.#entries.set(key, { body, storedAt: this.#now(), bytes });
        return body;
      })
      .finally(() => this.#loading.delete(key));
    this.#loading.set(key, pending);
    return pending;
  }
}
