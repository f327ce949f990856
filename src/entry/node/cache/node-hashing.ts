/**
 * Node's native hashing for the cache (Node entry only): a synchronous HMAC-SHA-256 of tokens under a
 * per-process secret, or one derived from `CACHE_SECRET` exactly as webHashing derives it (so both
 * name a caller alike), a SHA-1 digest for ETags and a keyed SHA-256 fingerprint of tokens, all
 * several times cheaper than Web Crypto's thread-pool round trip or a JS hash (docs/performance.md).
 */
import { createHash, createHmac, hash, hkdfSync, randomBytes } from 'node:crypto';
import { CACHE_KDF_SALT, CALLER_NAMES_INFO, cacheSecretBytes } from '../../../cache/cache-secret.ts';
import type { Hashing } from '../../../ports/hashing.ts';

export function nodeHashing(cacheSecret?: string): Hashing {
  const secret =
    cacheSecret === undefined ? randomBytes(32) : Buffer.from(hkdfSync('sha256', cacheSecretBytes(cacheSecret), CACHE_KDF_SALT, CALLER_NAMES_INFO, 32));
  // The fingerprint's key: always a per-process secret (the fingerprint never leaves the process),
  // put before the token (one SHA-256, no HMAC object; length extension is no concern for a name
  // that is only ever compared in this process's memory).
  const fingerprintKey = randomBytes(32).toString('base64url');
  return {
    callerOf: (token) => createHmac('sha256', secret).update(token).digest('base64url'),
    digest: (parts) => {
      const sha1 = createHash('sha1');
      for (const part of parts) sha1.update(part);
      return sha1.digest('base64url');
    },
    // One call into OpenSSL, no object: ~0.6 µs against ~2 µs for the HMAC (docs/performance.md).
    // Keyed, so that no plain hash of a token is kept anywhere, even in memory.
    fingerprintOf: (token) => hash('sha256', fingerprintKey + token, 'base64url'),
  };
}
