/**
 * What the configured cache secret (`CACHE_SECRET`) is turned into. Each use gets its own key,
 * derived with HKDF-SHA-256 under a label of its own, so that no key serves two purposes: the HMAC
 * naming callers in cache keys, the HMAC naming entries in a shared tier, and each caller's entry
 * encryption key (docs/decisions.md, "Shared cache tier"). The labels are constants of the stored
 * format: changing one makes every instance miss every entry written before.
 */

/** HKDF salt of every derivation from the cache secret (fixed: the secret itself is the randomness). */
export const CACHE_KDF_SALT = new TextEncoder().encode('clinical-records-facade/cache');

/** HKDF info of the key that names callers (`callerOf` in src/ports/hashing.ts), on Node and Web Crypto alike. */
export const CALLER_NAMES_INFO = new TextEncoder().encode('caller-names/v1');

/** HKDF info of the key that names entries in a shared tier (sealed-tier.ts). */
export const ENTRY_NAMES_INFO = new TextEncoder().encode('entry-names/v1');

/**
 * HKDF info of one caller's entry encryption key: the SHA-256 of the token (given as `tokenDigest`),
 * or a marker for callers without one. The digest, not the token: HKDF's info is limited to 1,024
 * bytes on Node and in Web Crypto, and a JWT is often longer (a longer token failed every seal, so its
 * caller never had a shared entry). The two forms cannot meet: a digest is always after `token:`.
 */
export function entryKeyInfo(tokenDigest: Uint8Array | undefined): Uint8Array<ArrayBuffer> {
  const label = new TextEncoder().encode(tokenDigest === undefined ? 'entry-key/v2\u0000anonymous' : 'entry-key/v2\u0000token:');
  const info = new Uint8Array(label.byteLength + (tokenDigest?.byteLength ?? 0));
  info.set(label);
  if (tokenDigest !== undefined) info.set(tokenDigest, label.byteLength);
  return info;
}

/** The shortest secret accepted, in bytes of UTF-8: as many as the keys derived from it. */
export const MIN_CACHE_SECRET_BYTES = 32;

/** The secret's bytes, as configured (the text's UTF-8: `openssl rand -base64 32` gives 44 characters). */
export function cacheSecretBytes(secret: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(secret);
}

/** A 32-byte key derived from the secret for one purpose, over Web Crypto (any runtime). */
export async function deriveBits(secret: string, info: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer> {
  const base = await crypto.subtle.importKey('raw', cacheSecretBytes(secret), 'HKDF', false, ['deriveBits']);
  return crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: CACHE_KDF_SALT, info }, base, 256);
}
