/**
 * Cache keys and stored bodies. A key names the caller by an HMAC of the access token under a
 * secret made at start-up, or derived from `CACHE_SECRET` where one is configured (never the token,
 * and not reversible by guessing tokens offline), then the canonical request. Two callers never
 * share an entry; no token appears in a key.
 */
import type { Hashing } from '../ports/hashing.ts';
import type { StoredBody } from './response-cache.ts';

const encoder = new TextEncoder();

/** `anonymous` without a token; otherwise the keyed hash of the token: never the token itself. Synchronous where the hashing is (Node). */
export function callerKey(hashing: Hashing, token: string | undefined): string | Promise<string> {
  return token === undefined ? 'anonymous' : hashing.callerOf(token);
}

const BUNDLE_PREFIX = '{"resourceType":"Bundle","id":"';

/**
 * A serialized payload as the bytes every response sends, with the place of its Bundle id, so each
 * response can carry a fresh one (spec 2.1: "generated per response") without serializing or
 * encoding again, and a weak ETag over the rest: the same records give the same ETag whatever the
 * Bundle id (the digest of the text before and after the id, as it always was).
 */
export async function storedBody(json: string, digest: Hashing['digest']): Promise<StoredBody> {
  const bytes = encoder.encode(json);
  if (!json.startsWith(BUNDLE_PREFIX)) return { bytes, bundleId: undefined, etag: `W/"${await digest([bytes])}"` };
  const idEnd = json.indexOf('"', BUNDLE_PREFIX.length);
  // The prefix is ASCII: its characters are its bytes. The id may not be (an injected one).
  const start = BUNDLE_PREFIX.length;
  const end = start + encoder.encode(json.slice(start, idEnd)).byteLength;
  // The bytes around the id are the UTF-8 of the text around it: the ETag it always had, with no text built again.
  const etag = `W/"${await digest([bytes.subarray(0, start), bytes.subarray(end)])}"`;
  return { bytes, bundleId: { start, end }, etag };
}

/**
 * The body of one response: the stored bytes themselves when they have no Bundle id, else a copy
 * with a fresh id written in (the stored bytes are shared by every response and never changed),
 * in a buffer from `allocate` (body-buffers.ts on Node).
 */
export function renderBody(body: StoredBody, newBundleId: () => string, allocate = newBuffer): Uint8Array<ArrayBuffer> {
  const place = body.bundleId;
  if (place === undefined) return body.bytes;
  const id = newBundleId();
  if (id.length === place.end - place.start) {
    // A copy is a memcpy, cheaper than building and encoding a string per response (docs/performance.md).
    const copy = allocate(body.bytes.byteLength);
    copy.set(body.bytes);
    let ascii = true;
    for (let at = 0; at < id.length && ascii; at += 1) {
      const code = id.charCodeAt(at);
      copy[place.start + at] = code;
      ascii = code < 0x80;
    }
    if (ascii) return copy;
  }
  // An id of another length (an injected one): the body is built around it.
  const idBytes = encoder.encode(id);
  const rendered = new Uint8Array(body.bytes.byteLength - (place.end - place.start) + idBytes.byteLength);
  rendered.set(body.bytes.subarray(0, place.start));
  rendered.set(idBytes, place.start);
  rendered.set(body.bytes.subarray(place.end), place.start + idBytes.byteLength);
  return rendered;
}

function newBuffer(size: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(size);
}

/** Whether an If-None-Match header names this ETag (weak comparison, as RFC 9110 says for GET). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}
