/**
 * A shared tier as the response cache uses it: entries encoded (stored-body-codec.ts), sealed for
 * their caller and named by keyed hash (entry-cipher.ts), every wait bounded, and a tier that fails
 * skipped rather than failing a request. The tier is taken for down at an error (refused, offline)
 * or at a timeout when it has not answered for OUTAGE_AFTER_MS; an outage is logged once when it
 * starts and once when it ends, not per request, and while it lasts the tier is asked at most once
 * a second.
 */
import type { Logger } from '../log.ts';
import { EntryCipher, type EntrySealing } from './entry-cipher.ts';
import { withinMs, type SharedTier, type TierEvent } from './shared-tier.ts';
import { decodeStoredEntry, encodeStoredEntry, type StoredEntry } from './stored-body-codec.ts';

/**
 * How long without any answer makes timeouts an outage. A timeout alone is not one: on a loaded
 * process the event loop can hold a reply past the bound, many requests at once, and skipping the
 * tier then sends every request to the upstream, which loads the process more (seen in the bench).
 * A tier that answers nothing for this long is hung; until then each request waits the bound at most.
 */
const OUTAGE_AFTER_MS = 1000;

export interface SealedTierOptions {
  tier: SharedTier;
  /** `CACHE_SECRET`: the same on every instance sharing the tier, or their names never meet. */
  secret: string;
  /** The runtime's naming and sealing under that secret (Web Crypto's EntryCipher without one). */
  sealing?: (secret: string) => EntrySealing;
  /** Longest wait for the tier on one operation (`CACHE_L2_TIMEOUT_MS`). */
  timeoutMs: number;
  logger: Logger;
  /** Told every event, for /metrics. */
  onEvent?: (event: TierEvent) => void;
  /** How long a failed tier is skipped before it is asked again (1 s). */
  retryAfterMs?: number;
  now?: () => number;
}

export class SealedTier {
  readonly name: string;
  readonly #options: SealedTierOptions;
  readonly #cipher: EntrySealing;
  readonly #now: () => number;
  readonly #pending = new Set<Promise<unknown>>();
  /** When the current outage began (undefined while the tier answers), and when to ask it again. */
  #downSince: number | undefined;
  #skipUntil = 0;
  /** When the tier last answered (or this began): timeouts are an outage only long after it. */
  #answeredAt: number;
  /** Whether a failure to name or seal an entry was logged already (once per process). */
  #sealingFailed = false;

  constructor(options: SealedTierOptions) {
    this.#options = options;
    this.name = options.tier.name;
    this.#cipher = options.sealing?.(options.secret) ?? new EntryCipher(options.secret);
    this.#now = options.now ?? Date.now;
    this.#answeredAt = this.#now();
  }

  /** The entry for `cacheKey` if this caller can read it and it is younger than `maxAgeMs`; never rejects. */
  async read(cacheKey: string, token: string | undefined, maxAgeMs: number): Promise<StoredEntry | undefined> {
    const name = await this.#cipher.nameOf(cacheKey);
    const sealed = await this.#call((tier) => tier.get(name));
    if (sealed === 'failed') return undefined;
    const plain = sealed === undefined ? undefined : await this.#cipher.open(token, name, sealed);
    const entry = plain === undefined ? undefined : decodeStoredEntry(plain);
    const usable = entry !== undefined && this.#now() - entry.storedAt < maxAgeMs;
    this.#options.onEvent?.(usable ? 'hit' : 'miss');
    return usable ? entry : undefined;
  }

  /** Stores the entry for this caller until `ttlMs` from now; never rejects (settle() waits for it). */
  write(cacheKey: string, token: string | undefined, entry: StoredEntry, ttlMs: number): Promise<void> {
    return this.#track(async () => {
      const name = await this.#cipher.nameOf(cacheKey);
      const sealed = await this.#cipher.seal(token, name, encodeStoredEntry(entry));
      if ((await this.#call((tier) => tier.set(name, sealed, ttlMs))) !== 'failed') this.#options.onEvent?.('store');
    });
  }

  /** Forgets the entry for `cacheKey` (whoever's it is: a refusal ends it everywhere); never rejects. */
  forget(cacheKey: string): Promise<void> {
    return this.#track(async () => {
      const name = await this.#cipher.nameOf(cacheKey);
      await this.#call((tier) => tier.delete(name));
    });
  }

  /** Resolves when the writes and deletions under way now have ended (a stop lets them finish). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
  }

  async close(): Promise<void> {
    await this.#options.tier.close?.();
  }

  /** One tier operation within the bounded wait, or `failed` (counted, an outage logged once). */
  async #call<T>(operation: (tier: SharedTier) => Promise<T>): Promise<T | 'failed'> {
    if (this.#downSince !== undefined && this.#now() < this.#skipUntil) {
      this.#options.onEvent?.('skipped');
      return 'failed';
    }
    let outcome: { value: T } | 'timed-out' | { error: unknown };
    try {
      outcome = await withinMs(operation(this.#options.tier), this.#options.timeoutMs);
    } catch (error) {
      outcome = { error };
    }
    if (outcome !== 'timed-out' && 'value' in outcome) {
      this.#recovered();
      return outcome.value;
    }
    this.#failed(outcome === 'timed-out' ? 'timeout' : 'error', outcome === 'timed-out' ? 'timeout' : reasonOf(outcome.error));
    return 'failed';
  }

  #failed(event: 'timeout' | 'error', reason: string): void {
    this.#options.onEvent?.(event);
    const now = this.#now();
    if (event === 'timeout' && this.#downSince === undefined && now - this.#answeredAt < OUTAGE_AFTER_MS) return;
    this.#skipUntil = now + (this.#options.retryAfterMs ?? 1000);
    if (this.#downSince !== undefined) return;
    this.#downSince = now;
    this.#options.logger('warn', 'shared cache tier unavailable: skipped until it answers', { tier: this.name, reason });
  }

  #recovered(): void {
    this.#answeredAt = this.#now();
    if (this.#downSince === undefined) return;
    this.#options.logger('info', 'shared cache tier available again', { tier: this.name, downMs: this.#now() - this.#downSince });
    this.#downSince = undefined;
  }

  #track(work: () => Promise<void>): Promise<void> {
    // Only naming or sealing can throw here (tier failures are outcomes of #call): never a caller's
    // error, but said once, as a tier that never receives a write would otherwise be invisible.
    const pending = work().catch((error: unknown) => {
      this.#options.onEvent?.('unsealable');
      if (this.#sealingFailed) return;
      this.#sealingFailed = true;
      this.#options.logger('error', 'shared cache tier: an entry could not be sealed (logged once)', { tier: this.name, reason: reasonOf(error) });
    });
    this.#pending.add(pending);
    void pending.finally(() => this.#pending.delete(pending));
    return pending;
  }
}

/** What kind of failure, never its message: a client's message may carry the tier's address or password. */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.constructor.name : 'unknown';
}
