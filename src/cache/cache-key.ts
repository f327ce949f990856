/**
 * Cache keys and stored bodies. A key names the caller by an HMAC of the access token under a
 * secret made at start-up (never the token, and not reversible by guessing tokens offline), then the
 * canonical request. Two callers never share an entry; no token appears in a key.
 */
import type { StoredBody } from './response-cache.ts';

const encoder = new TextEncoder();

/** Hashes callers' tokens for cache keys with a per-process secret key. */
export class CallerHasher {
  readonly #key: Promise<CryptoKey>;

  constructor() {
    const secret = crypto.getRandomValues(new Uint8Array(32));
    this.#key = crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  }

  /** `anonymous` without a token; otherwise the base64url HMAC-SHA-256 of the token. */
  async callerOf(token: string | undefined): Promise<string> {
    if (token === undefined) return 'anonymous';
    const mac = await crypto.subtle.sign('HMAC', await this.#key, encoder.encode(token));
    return base64url(new Uint8Array(mac));
  }
}

const BUNDLE_PREFIX = '{"resourceType":"Bundle","id":"';

/**
 * Splits a serialized payload where its Bundle id is, so each response can carry a fresh one
 * without serializing again (spec 2.1: "generated per response"), and gives it a weak ETag over the
 * rest: the same records give the same ETag whatever the Bundle id.
 */
export async function storedBody(json: string): Promise<StoredBody> {
  let before = json;
  let after: string | undefined;
  if (json.startsWith(BUNDLE_PREFIX)) {
    const idEnd = json.indexOf('"', BUNDLE_PREFIX.length);
    before = json.slice(0, BUNDLE_PREFIX.length);
    after = json.slice(idEnd);
  }
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(`${before}\u0000${after ?? ''}`));
  return { before, after, etag: `W/"${base64url(new Uint8Array(digest)).slice(0, 27)}"` };
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

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}
