/**
 * A bulkhead in front of the upstream: at most `maxInFlight` requests at once in all, and at most
 * `maxInFlightPerPartition` for one partition (one FHIR resource type). When one resource type
 * hangs upstream, its requests fill only their own share; the rest stays for the others. A request
 * that finds no room waits in line a bounded time, then fails fast with a 503, never at the deadline.
 */
import { FacadeError } from '../errors.ts';

export interface BulkheadOptions {
  maxInFlight: number;
  maxInFlightPerPartition: number;
  /** Longest wait in line for room (never past the request's own deadline). */
  maxQueueWaitMs: number;
  /** Told of each request that had to wait, and of each that waited in vain. */
  onQueued?: (partition: string) => void;
  onRejected?: (partition: string) => void;
}

/** A granted place; `release` gives it back (once). */
export type Release = () => void;

interface Permit {
  partition: string;
  /**
   * When the holder's deadline has passed by a margin. On Workers a cancelled request's code stops
   * where it is and its `finally` never runs: a permit past this time is taken back rather than
   * lost for the life of the isolate.
   */
  expiresAt: number;
}

interface Waiter {
  partition: string;
  expiresAt: number;
  grant: (release: Release) => void;
}

/** Time a permit outlives its holder's deadline before it is taken back. */
const EXPIRY_MARGIN_MS = 5_000;

export class Bulkhead {
  readonly #options: BulkheadOptions;
  readonly #held = new Set<Permit>();
  readonly #waiters: Waiter[] = [];

  constructor(options: BulkheadOptions) {
    this.#options = options;
  }

  /** Waits for room for one request of `partition`, until the queue wait or the deadline ends. */
  async acquire(partition: string, deadline: number, signal: AbortSignal): Promise<Release> {
    const expiresAt = deadline + EXPIRY_MARGIN_MS;
    this.#reclaimExpired();
    // Only requests of the same partition are queued ahead: a healthy partition never waits behind a stuck one.
    const sameAhead = this.#waiters.some((waiter) => waiter.partition === partition);
    if (!sameAhead && this.#hasRoom(partition)) return this.#take(partition, expiresAt);
    this.#options.onQueued?.(partition);
    const waitMs = Math.max(0, Math.min(this.#options.maxQueueWaitMs, deadline - Date.now()));
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = { partition, expiresAt, grant: (release) => finish(() => resolve(release)) };
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        const index = this.#waiters.indexOf(waiter);
        if (index !== -1) this.#waiters.splice(index, 1);
        settle();
      };
      const onAbort = () => finish(() => reject(signal.reason));
      const timer = setTimeout(() => {
        // A permit of a request that vanished may have expired meanwhile: look once more before refusing.
        this.#reclaimExpired();
        if (this.#hasRoom(partition)) return finish(() => resolve(this.#take(partition, expiresAt)));
        this.#options.onRejected?.(partition);
        finish(() => reject(new FacadeError('upstream-busy', undefined, { reason: 'bulkhead-full', retryAfterSeconds: 1 })));
      }, waitMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Requests holding a place now (for tests and metrics). */
  inFlight(partition?: string): number {
    let count = 0;
    for (const permit of this.#held) if (partition === undefined || permit.partition === partition) count += 1;
    return count;
  }

  #hasRoom(partition: string): boolean {
    return this.#held.size < this.#options.maxInFlight && this.inFlight(partition) < this.#options.maxInFlightPerPartition;
  }

  #take(partition: string, expiresAt: number): Release {
    const permit: Permit = { partition, expiresAt };
    this.#held.add(permit);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held.delete(permit);
      this.#grantWaiting();
    };
  }

  /** Gives freed room to the waiters in arrival order, skipping those whose partition is still full. */
  #grantWaiting(): void {
    for (const waiter of [...this.#waiters]) {
      if (this.#held.size >= this.#options.maxInFlight) return;
      if (this.#hasRoom(waiter.partition)) waiter.grant(this.#take(waiter.partition, waiter.expiresAt));
    }
  }

  #reclaimExpired(): void {
    const now = Date.now();
    let reclaimed = false;
    for (const permit of this.#held) {
      if (permit.expiresAt < now) {
        this.#held.delete(permit);
        reclaimed = true;
      }
    }
    if (reclaimed) this.#grantWaiting();
  }
}
