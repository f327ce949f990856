/**
 * The shared tier's naming and sealing with Node's native crypto (Node entry only): the same names
 * and the same sealed layout as src/cache/entry-cipher.ts (Web Crypto), so instances of either kind
 * read each other's entries, at a fraction of the cost: Web Crypto's per-call work (algorithm
 * normalization, a key object per derivation, a thread-pool job per operation) was ~40 % of an L2
 * hit's CPU (docs/performance.md). Everything here is synchronous.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { CACHE_KDF_SALT, ENTRY_NAMES_INFO, cacheSecretBytes, entryKeyInfo } from '../../../cache/cache-secret.ts';
import { IV_BYTES, NAME_PREFIX, SEALED_V1, TAG_BYTES, type EntrySealing } from '../../../cache/entry-cipher.ts';

export function nodeEntryCipher(secret: string): EntrySealing {
  const secretBytes = cacheSecretBytes(secret);
  const namesKey = Buffer.from(hkdfSync('sha256', secretBytes, CACHE_KDF_SALT, ENTRY_NAMES_INFO, 32));
  // The caller's AES key: derived per use, so no key (nor the token) is kept between requests.
  const keyFor = (token: string | undefined) => {
    const digest = token === undefined ? undefined : createHash('sha256').update(token).digest();
    return Buffer.from(hkdfSync('sha256', secretBytes, CACHE_KDF_SALT, entryKeyInfo(digest), 32));
  };
  return {
    nameOf: (cacheKey) => NAME_PREFIX + createHmac('sha256', namesKey).update(cacheKey).digest('base64url'),
    seal(token, name, plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keyFor(token), iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(name));
      const sealed = new Uint8Array(1 + IV_BYTES + plaintext.byteLength + TAG_BYTES);
      sealed[0] = SEALED_V1;
      sealed.set(iv, 1);
      let at = 1 + IV_BYTES;
      for (const part of [cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]) {
        sealed.set(part, at);
        at += part.byteLength;
      }
      return sealed;
    },
    open(token, name, sealed) {
      if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== SEALED_V1) return undefined;
      const tagAt = sealed.length - TAG_BYTES;
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyFor(token), sealed.subarray(1, 1 + IV_BYTES), { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(name));
        decipher.setAuthTag(sealed.subarray(tagAt));
        const head = decipher.update(sealed.subarray(1 + IV_BYTES, tagAt));
        const tail = decipher.final(); // throws when the tag does not match
        const plain = new Uint8Array(head.byteLength + tail.byteLength);
        plain.set(head);
        plain.set(tail, head.byteLength);
        return plain;
      } catch {
        return undefined; // sealed for another token or name, or altered
      }
    },
  };
}
