/**
 * Server-side paging state, as HAPI (cached searches behind `_getpages` ids) and Azure (`ct`
 * continuation tokens) keep it: a token names state on the server, and the state can be gone by
 * the time the token comes back (UPSTREAMS.md §1 "ids expire → 410", §9 Firely `PagingLifetime`,
 * personality 14 "token-expiry").
 */
import { randomBytes } from 'node:crypto';
import type { TokenExpiry } from './personality.ts';

interface Issued<T> {
  value: T;
  issuedAt: number;
  expired: boolean;
  used: Set<string>;
}

export type Redeemed<T> = { value: T } | { gone: 'expired' | 'unknown' };

/** Tokens (or session ids) mapped to their server-side state, under one expiry policy. */
export class PagingTokens<T> {
  readonly #issued = new Map<string, Issued<T>>();
  readonly #searchesSeen = new Set<string>();

  constructor(
    private readonly expiry: TokenExpiry = {},
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Whether a new paging session of the search `searchKey` is born expired: true for the first
   * session of each search when `firstSessionOfEachSearchExpired` is set.
   */
  startsExpired(searchKey: string): boolean {
    const first = !this.#searchesSeen.has(searchKey);
    this.#searchesSeen.add(searchKey);
    return first && this.expiry.firstSessionOfEachSearchExpired === true;
  }

  issue(token: string, value: T, expired = false): void {
    this.#issued.set(token, { value, issuedAt: this.now(), expired, used: new Set() });
  }

  /** The state behind `token` for one use (`useKey` tells page uses apart for single-use tokens). */
  redeem(token: string, useKey = ''): Redeemed<T> {
    const issued = this.#issued.get(token);
    if (!issued) return { gone: 'unknown' };
    const { ttlMs, singleUse } = this.expiry;
    const tooOld = ttlMs !== undefined && this.now() - issued.issuedAt > ttlMs;
    const reused = singleUse === true && issued.used.has(useKey);
    if (issued.expired || tooOld || reused) return { gone: 'expired' };
    issued.used.add(useKey);
    return { value: issued.value };
  }
}

/**
 * An Azure-like continuation token: base64 of ~1.7 KB (2,272 characters), always holding `+`, `/`
 * and `=` (Cosmos tokens of 2–4 KB with `+ : =`, microsoft/fhir-server#442, #452).
 */
export function continuationToken(): string {
  // 0xfb 0xef 0xff encode as "++//"; 1,703 bytes is not a multiple of 3, so the token ends in "=".
  return Buffer.concat([Buffer.from([0xfb, 0xef, 0xff]), randomBytes(1700)]).toString('base64');
}

/**
 * How the token is written into the link: `+` escaped (a raw `+` would read as a space), `/` and
 * `=` left as they are (both legal in a query). The proxy then compares the query value it
 * receives byte for byte with this form, so a client that decodes the link, or re-encodes it
 * (`%2F`, `%3D`, `%252B`), is refused. That is stricter than Azure, which decodes the value once,
 * and is what a signed next link (HealthLake's `page=`, §5) demands.
 */
export function tokenInLink(token: string): string {
  return token.replaceAll('+', '%2B');
}

/** True when `value` (a decoded query value) is well-formed base64, as a token must be. */
export function looksLikeToken(value: string): boolean {
  return value.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(value);
}
