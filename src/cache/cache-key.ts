/**
 * Cache keys and stored bodies. A key names the caller by an HMAC of the access token under a
 * secret made at start-up, or derived from `CACHE_SECRET` where one is configured (never the token,
 * and not reversible by guessing tokens offline), then the canonical request. Two callers never
 * share an entry; no token appears in a key.
 */
import { CALLER_NAMES_INFO, deriveBits } from './cache-secret.ts';
import type { StoredBody } from './response-cache.ts';

const encoder = new TextEncoder();

/**
 * The two hashes the cache needs, injected per runtime: Web Crypto works everywhere, but on Node a
 * synchronous native HMAC and digest avoid a thread-pool round trip per request (docs/performance.md).
 */
export interface Hashing {
  /** A keyed hash (HMAC-SHA-256 under a per-process or configured secret) of a caller's token. */
  callerOf(token: string): string | Promise<string>;
  /** The SHA-1 of a body, base64url, for its ETag: the same on every runtime, so instances agree. */
  digest(text: string): string | Promise<string>;
}

/**
 * Hashing over Web Crypto: runs on any runtime. Callers are named under a key derived from
 * `cacheSecret` when given (the same on every instance, as a shared tier needs), else a random one.
 */
export function webHashing(cacheSecret?: string): Hashing {
  const secret = cacheSecret === undefined ? Promise.resolve(crypto.getRandomValues(new Uint8Array(32))) : deriveBits(cacheSecret, CALLER_NAMES_INFO);
  const key = secret.then((bytes) => crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']));
  return {
    async callerOf(token) {
      return base64url(new Uint8Array(await crypto.subtle.sign('HMAC', await key, encoder.encode(token))));
    },
    digest: async (text) => base64url(new Uint8Array(await crypto.subtle.digest('SHA-1', encoder.encode(text)))),
  };
}

/** `anonymous` without a token; otherwise the keyed hash of the token: never the token itself. */
export async function callerKey(hashing: Hashing, token: string | undefined): Promise<string> {
  return token === undefined ? 'anonymous' : hashing.callerOf(token);
}

const BUNDLE_PREFIX = '{"resourceType":"Bundle","id":"';

/**
 * Splits a serialized payload where its Bundle id is, so each response can carry a fresh one
 * without serializing again (spec 2.1: "generated per response"), and gives it a weak ETag over the
 * rest: the same records give the same ETag whatever the Bundle id.
 */
export async function storedBody(json: string, digest: Hashing['digest']): Promise<StoredBody> {
  let before = json;
  let after: string | undefined;
  if (json.startsWith(BUNDLE_PREFIX)) {
    const idEnd = json.indexOf('"', BUNDLE_PREFIX.length);
    before = json.slice(0, BUNDLE_PREFIX.length);
    after = json.slice(idEnd);
  }
  return { before, after, etag: `W/"${await digest(after === undefined ? before : before + after)}"` };
}

/** The body of one response: the stored bytes, with a fresh Bundle id spliced in when there is one. */
export function renderBody(body: StoredBody, newBundleId: () => string): string {
  return body.after === undefined ? body.before : `${body.before}${newBundleId()}${body.after}`;
}

/** Whether an If-None-Match header names this ETag (weak comparison, as RFC 9110 says for GET). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}

/** Bytes as base64url without padding (keys, ETags). */
export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}
