/**
 * Names and seals entries for a shared tier, over Web Crypto so the same code runs on Node and in
 * workerd (docs/decisions.md, "Shared cache tier"):
 *
 * - an entry's name is an HMAC-SHA-256, under a key derived from `CACHE_SECRET`, of the key the
 *   in-process cache uses (caller hash and canonical request): the canonical request holds the
 *   patient id, which a tier's dump must not show, and a plain hash of it could be reversed by
 *   trying ids;
 * - its bytes are encrypted with AES-256-GCM under a key derived (HKDF-SHA-256) from the secret and
 *   the caller's token, with a random 96-bit IV per write and the entry's name as additional data.
 *   Without the token an entry cannot be read, even with the secret; with another token, or moved
 *   to another name, it fails authentication, which the reader takes as a miss.
 */
import { base64url } from '../ports/hashing.ts';
import { CACHE_KDF_SALT, ENTRY_NAMES_INFO, cacheSecretBytes, deriveBits, entryKeyInfo } from './cache-secret.ts';

/** First byte of every sealed entry: the layout below (version, IV, ciphertext with its tag). */
export const SEALED_V1 = 1;
export const IV_BYTES = 12;
/** AES-GCM's tag, at the end of the ciphertext (Web Crypto's layout, kept by every implementation). */
export const TAG_BYTES = 16;
/**
 * Prefix of every entry name, so a tier shared with other software shows whose keys these are. v2:
 * the entry key from the token's digest (cache-secret.ts); v1 entries are never asked for again.
 */
export const NAME_PREFIX = 'crrs-facade:v2:';

const encoder = new TextEncoder();

/**
 * Naming and sealing of shared-tier entries, injected per runtime like the hashing port: this file's
 * EntryCipher (Web Crypto) everywhere, the native one on Node (src/entry/node/cache/node-entry-cipher.ts,
 * several times cheaper per entry). Both give the same names and read each other's entries.
 */
export interface EntrySealing {
  nameOf(cacheKey: string): string | Promise<string>;
  seal(token: string | undefined, name: string, plaintext: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> | Promise<Uint8Array<ArrayBuffer>>;
  open(
    token: string | undefined,
    name: string,
    sealed: Uint8Array<ArrayBuffer>,
  ): Uint8Array<ArrayBuffer> | undefined | Promise<Uint8Array<ArrayBuffer> | undefined>;
}

export class EntryCipher implements EntrySealing {
  readonly #names: Promise<CryptoKey>;
  readonly #base: Promise<CryptoKey>;

  constructor(secret: string) {
    this.#names = deriveBits(secret, ENTRY_NAMES_INFO).then((bits) => crypto.subtle.importKey('raw', bits, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']));
    this.#base = crypto.subtle.importKey('raw', cacheSecretBytes(secret), 'HKDF', false, ['deriveKey']);
  }

  /** The tier's name for the entry the in-process cache keeps under `cacheKey`. */
  async nameOf(cacheKey: string): Promise<string> {
    const mac = await crypto.subtle.sign('HMAC', await this.#names, encoder.encode(cacheKey));
    return NAME_PREFIX + base64url(new Uint8Array(mac));
  }

  /** `plaintext` encrypted for the caller holding `token` (undefined: callers without one), bound to `name`. */
  async seal(token: string | undefined, name: string, plaintext: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const params = { name: 'AES-GCM', iv, additionalData: encoder.encode(name) };
    const ciphertext = new Uint8Array(await crypto.subtle.encrypt(params, await this.#keyFor(token, ['encrypt']), plaintext));
    const sealed = new Uint8Array(1 + IV_BYTES + ciphertext.length);
    sealed[0] = SEALED_V1;
    sealed.set(iv, 1);
    sealed.set(ciphertext, 1 + IV_BYTES);
    return sealed;
  }

  /** The plaintext, or undefined when the entry was sealed for another token or name, or altered. */
  async open(token: string | undefined, name: string, sealed: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer> | undefined> {
    if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== SEALED_V1) return undefined;
    const params = { name: 'AES-GCM', iv: sealed.subarray(1, 1 + IV_BYTES), additionalData: encoder.encode(name) };
    try {
      return new Uint8Array(await crypto.subtle.decrypt(params, await this.#keyFor(token, ['decrypt']), sealed.subarray(1 + IV_BYTES)));
    } catch {
      return undefined; // OperationError: the tag does not match
    }
  }

  /** The caller's AES key: derived per use, so no key (nor the token) is kept between requests. */
  async #keyFor(token: string | undefined, usages: KeyUsage[]): Promise<CryptoKey> {
    const digest = token === undefined ? undefined : new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(token)));
    const params = { name: 'HKDF', hash: 'SHA-256', salt: CACHE_KDF_SALT, info: entryKeyInfo(digest) };
    return crypto.subtle.deriveKey(params, await this.#base, { name: 'AES-GCM', length: 256 }, false, usages);
  }
}
