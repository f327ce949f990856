/**
 * Requests that passed validation, remembered by their raw form, so that a repeated request (the
 * cache hits) is not validated again: the same route, id, caller and query less its token always
 * validate to the same prepared request, so only the first of them pays for it. A request that
 * fails validation is never remembered, so it gets its 4xx every time. Access control is not
 * remembered: it is time-dependent (a token expires, a key rotates) and runs on every request.
 */
import type { PreparedRequest } from './legacy-operation.ts';

/** A validated request, and its cache key while access control leaves it unchanged (passthrough). */
export interface ValidatedRequest {
  prepared: PreparedRequest;
  cacheKey: string;
}

/** Remembered requests before the memory starts again: bounded, and cheap to rebuild. */
const MAX_REMEMBERED = 10_000;

export class ValidatedRequests {
  readonly #remembered = new Map<string, ValidatedRequest>();

  /**
   * The name of a raw request: the caller (the keyed hash of the token, never the token), the
   * route, the id (length-prefixed, so no id can run into the query) and the query less its token.
   */
  static keyOf(caller: string, routeName: string, id: string | undefined, rest: string): string {
    return `${caller}|${routeName}|${id === undefined ? '-' : `${id.length}:${id}`}|${rest}`;
  }

  get(key: string): ValidatedRequest | undefined {
    return this.#remembered.get(key);
  }

  remember(key: string, request: ValidatedRequest): void {
    if (this.#remembered.size >= MAX_REMEMBERED) this.#remembered.clear();
    this.#remembered.set(key, request);
  }
}
