/**
 * A cache tier shared beyond this process, behind the in-process LRU: Redis or Valkey on Node
 * (src/entry/node/cache/redis-tier.ts), the Cache API on Workers (src/entry/edge-cache-tier.ts). A tier stores opaque
 * bytes under opaque names; what goes in is sealed and named by sealed-tier.ts, so no tier ever
 * sees a token, a patient id or a body in clear.
 */
export interface SharedTier {
  /** The tier's label in metrics and logs (`redis`, `edge-cache`). */
  readonly name: string;
  /** The bytes stored under `key`, or undefined. Rejects when the tier cannot answer. */
  get(key: string): Promise<Uint8Array<ArrayBuffer> | undefined>;
  /** Stores `value` under `key` for `ttlMs` (the tier forgets it after that). */
  set(key: string, value: Uint8Array<ArrayBuffer>, ttlMs: number): Promise<void>;
  /** Forgets `key` (an entry whose refresh was refused: see ResponseCacheOptions.forgetOnRefreshError). */
  delete(key: string): Promise<void>;
  /** Releases connections when the service stops. */
  close?(): Promise<void>;
}

/** What a shared tier did for one operation, counted per tier in /metrics (`facade_cache_tier_events_total`). */
export type TierEvent =
  | 'hit' // a readable entry, fresh or within the stale window
  | 'miss' // none, too old, or not readable with this caller's token
  | 'store' // an entry written
  | 'error' // the tier failed (down, refused)
  | 'timeout' // the tier did not answer within CACHE_L2_TIMEOUT_MS
  | 'skipped' // not asked: it failed less than a second ago
  | 'unsealable'; // an entry could not be named or sealed (not the tier's failure; logged once)

/**
 * `work`'s result, or `timed-out` when it takes longer than `ms` (`work` then goes on unobserved).
 * When the timer fires, the verdict waits one more turn of the event loop: a busy loop runs expired
 * timers before it reads sockets, so a reply that arrived in time but was not read yet would
 * otherwise always lose, and under load every read would "time out" (seen in the bench).
 */
export async function withinMs<T>(work: Promise<T>, ms: number): Promise<{ value: T } | 'timed-out'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timed-out'>((resolve) => {
    timer = setTimeout(() => {
      timer = setTimeout(() => resolve('timed-out'), 0);
    }, ms);
  });
  // A late failure of the abandoned work is not an unhandled rejection: it was already counted as a timeout.
  work.catch(() => {});
  try {
    return await Promise.race([work.then((value) => ({ value })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
