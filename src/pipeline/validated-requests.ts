/**
 * Requests that passed validation, remembered by their raw form, so that a repeated request (the
 * cache hits) is not validated again: the same route, id, caller and query less its token always
 * validate to the same prepared request, so only the first of them pays for it. A request that
 * fails validation is never remembered, so it gets its 4xx every time. Access control is not
 * remembered: it is time-dependent (a token expires, a key rotates) and runs on every request.
 */
import type { PreparedRequest } from './legacy-operation.ts';

/** A validated request, its caller's key, and its cache key while access control leaves it unchanged (passthrough). */
export interface ValidatedRequest {
  /** Without its token (`token: undefined`): each request puts its own back. */
  prepared: PreparedRequest;
  /** The caller's part of a cache key: the keyed hash of the token (src/cache/cache-key.ts callerKey). */
  caller: string;
  cacheKey: string;
}

/**
 * Requests remembered per generation: when one is full the previous is dropped, so what is asked
 * often stays (it is found in the previous one and remembered again) and the memory is bounded
 * (at most 2 × 1,000 entries of ~800 bytes, outside the cache's byte bound: docs/performance.md).
 */
const GENERATION_SIZE = 1000;
/**
 * Longest key remembered: a request with a longer query (up to MAX_URL_LENGTH, padded with
 * parameters its route ignores) is validated every time instead, so the memo's bytes stay bounded
 * by its count (2 × 1,000 × ~1.5 KB at most) whatever the URL limit.
 */
export const MAX_REMEMBERED_KEY_LENGTH = 1024;

export class ValidatedRequests {
  #current = new Map<string, ValidatedRequest>();
  #previous = new Map<string, ValidatedRequest>();

  /**
   * The name of a raw request: the caller (a hash of the token, never the token), the route, the
   * id (length-prefixed, so no id can run into the query) and the query less its token.
   */
  static keyOf(caller: string, routeName: string, id: string | undefined, rest: string): string {
    return `${caller}|${routeName}|${id === undefined ? '-' : `${id.length}:${id}`}|${rest}`;
  }

  get(key: string): ValidatedRequest | undefined {
    const found = this.#current.get(key);
    if (found !== undefined) return found;
    const older = this.#previous.get(key);
    if (older !== undefined) this.remember(key, older);
    return older;
  }

  remember(key: string, request: ValidatedRequest): void {
    if (key.length > MAX_REMEMBERED_KEY_LENGTH) return;
    if (this.#current.size >= GENERATION_SIZE) {
      this.#previous = this.#current;
      this.#current = new Map();
    }
    this.#current.set(key, request);
  }
}
