/**
 * Wraps a Transport with what keeps the upstream path usable when the upstream is not: a circuit
 * breaker per origin (fail fast while it is down), a bulkhead (a hanging resource type cannot take
 * every connection), and retries of throttled answers (429, and 503 with a hint) within the
 * request's deadline. Runtime-neutral: both entries wrap their transport in it (src/assemble.ts).
 */
import { FacadeError } from '../errors.ts';
import type { Bulkhead, Release } from './bulkhead.ts';
import type { Attempt, CircuitBreakers } from './circuit-breaker.ts';
import { retryHintMs, retryWaitMs } from './retry-hints.ts';
import type { Transport, TransportRequest, TransportResponse } from './transport.ts';

export interface ResilienceOptions {
  breakers: CircuitBreakers;
  bulkhead: Bulkhead;
  /** Most attempts per upstream request, the first included, while it is throttled. */
  maxAttempts: number;
  /** A retry is made only if at least this much of the deadline is left after the wait. */
  minRetryBudgetMs: number;
  /** Told of each retry, with the status retried and the wait before it. */
  onRetry?: (status: number, waitMs: number) => void;
  /** Told when a throttled request gives up: `deadline` (the wait would pass it) or `attempts`. */
  onGiveUp?: (why: 'deadline' | 'attempts') => void;
  random?: () => number;
}

export function resilientTransport(inner: Transport, options: ResilienceOptions): Transport {
  const random = options.random ?? Math.random;
  return async (request) => {
    const origin = new URL(request.url).origin;
    for (let attempt = 1; ; attempt += 1) {
      // A retry is its own sending (and its own span): it says which one it is; the first goes as it came.
      const response = await attemptOnce(inner, attempt === 1 ? request : { ...request, attempt }, origin, options);
      if (!isThrottled(response)) return response;
      const hintMs = retryHintMs(response.header, Date.now());
      const waitMs = retryWaitMs(hintMs, attempt, random);
      const leftAfterWait = request.deadline - Date.now() - waitMs;
      if (attempt >= options.maxAttempts || leftAfterWait < options.minRetryBudgetMs) {
        const why = attempt >= options.maxAttempts ? 'attempts' : 'deadline';
        options.onGiveUp?.(why);
        throw throttled(response.status, why, hintMs ?? waitMs);
      }
      options.onRetry?.(response.status, waitMs);
      await sleep(waitMs, request.signal);
    }
  };
}

/** One request through the breaker and the bulkhead; the breaker is told how it ended. */
async function attemptOnce(inner: Transport, request: TransportRequest, origin: string, options: ResilienceOptions): Promise<TransportResponse> {
  const outcome: Attempt = options.breakers.admit(origin, request.deadline);
  let release: Release;
  try {
    release = await options.bulkhead.acquire(request.partition, request.deadline, request.signal);
  } catch (error) {
    outcome.abandoned();
    throw error;
  }
  try {
    const response = await inner(request);
    if (response.status >= 500 && !isThrottled(response)) outcome.failed();
    else outcome.answered();
    return response;
  } catch (error) {
    // A FacadeError from the transport (too large, badly encoded) means the server did answer.
    if (error instanceof FacadeError) outcome.answered();
    else if (request.signal.aborted) outcome.timedOut();
    else outcome.failed();
    throw error;
  } finally {
    release();
  }
}

/** 429 always; 503 only when it says when to come back (a bare 503 is a failing server, not a busy one). */
function isThrottled(response: TransportResponse): boolean {
  if (response.status === 429) return true;
  return response.status === 503 && retryHintMs(response.header, Date.now()) !== undefined;
}

function throttled(status: number, why: 'deadline' | 'attempts', waitMs: number): FacadeError {
  const detail = why === 'deadline' ? "it asked to wait past this request's deadline" : 'it was still throttling after the last retry';
  // The caller is told to come back when the upstream said it would take requests again.
  const retryAfterSeconds = Math.min(3600, Math.max(1, Math.ceil(waitMs / 1000)));
  return new FacadeError('upstream-throttled', detail, { reason: `http-${status}`, retryAfterSeconds });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
