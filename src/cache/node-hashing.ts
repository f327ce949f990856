/**
 * Node's native hashing for the cache (Node entry only): a synchronous HMAC-SHA-256 of tokens under a
 * per-process secret and a SHA-1 digest for ETags, both several times cheaper than Web Crypto's
 * thread-pool round trip or a JS hash (docs/performance.md).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Hashing } from './cache-key.ts';

export function nodeHashing(): Hashing {
  const secret = randomBytes(32);
  return {
    callerOf: (token) => createHmac('sha256', secret).update(token).digest('base64url'),
    digest: (text) => createHash('sha1').update(text).digest('base64url'),
  };
}
