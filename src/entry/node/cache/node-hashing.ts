/**
 * Node's native hashing for the cache (Node entry only): a synchronous HMAC-SHA-256 of tokens under a
 * per-process secret, or one derived from `CACHE_SECRET` exactly as webHashing derives it (so both
 * name a caller alike), and a SHA-1 digest for ETags, both several times cheaper than Web Crypto's
 * thread-pool round trip or a JS hash (docs/performance.md).
 */
import { createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { CACHE_KDF_SALT, CALLER_NAMES_INFO, cacheSecretBytes } from '../../../cache/cache-secret.ts';
import type { Hashing } from '../../../cache/cache-key.ts';

export function nodeHashing(cacheSecret?: string): Hashing {
  const secret =
    cacheSecret === undefined ? randomBytes(32) : Buffer.from(hkdfSync('sha256', cacheSecretBytes(cacheSecret), CACHE_KDF_SALT, CALLER_NAMES_INFO, 32));
  return {
    callerOf: (token) => createHmac('sha256', secret).update(token).digest('base64url'),
    digest: (text) => createHash('sha1').update(text).digest('base64url'),
  };
}
