/**
 * Hashing, a port shared by the cache and access control: the keyed hash that names a caller by its
 * token (cache keys; the keys of kept introspection answers) and the digest of a body (ETags).
 * Injected per runtime: Web Crypto's is here, Node's native one is src/entry/node/cache/node-hashing.ts.
 */
import { CALLER_NAMES_INFO, deriveBits } from '../cache/cache-secret.ts';

const encoder = new TextEncoder();

/**
 * The two hashes the cache needs, injected per runtime: Web Crypto works everywhere, but on Node a
 * synchronous native HMAC and digest avoid a thread-pool round trip per request (docs/performance.md).
 */
export interface Hashing {
  /** A keyed hash (HMAC-SHA-256 under a per-process or configured secret) of a caller's token. */
  callerOf(token: string): string | Promise<string>;
  /**
   * The SHA-1 of a body's bytes (the parts one after the other), base64url, for its ETag: the same
   * on every runtime, so instances agree.
   */
  digest(parts: readonly Uint8Array[]): string | Promise<string>;
  /**
   * Where the runtime has one at once (Node): a keyed, collision-resistant hash of a token (SHA-256
   * under another per-process secret) that names the caller in this process's memory only (the memo
   * of validated requests), several times cheaper than `callerOf`. Never part of a cache key nor
   * written anywhere: `callerOf` is.
   */
  fingerprintOf?(token: string): string;
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
    digest: async (parts) => base64url(new Uint8Array(await crypto.subtle.digest('SHA-1', concatenated(parts)))),
  };
}

function concatenated(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.byteLength;
  }
  return whole;
}

/** Bytes as base64url without padding (keys, ETags). */
export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}
