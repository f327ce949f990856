/**
 * Cache keys and stored bodies. A key names the caller by an HMAC of the access token under a
 * secret made at start-up, or derived from `CACHE_SECRET` where one is configured (never the token,
 * and not reversible by guessing tokens offline), then the canonical request. Two callers never
 * share an entry; no token appears in a key.
 */
import type { Hashing } from '../ports/hashing.ts';
import type { StoredBody } from './response-cache.ts';

/** The hashing port lives in src/ports/hashing.ts; re-exported for the cache's own importers (app.ts, src/entry/node/cache/node-hashing.ts). */
export { webHashing, type Hashing } from '../ports/hashing.ts';

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
