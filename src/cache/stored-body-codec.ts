/**
 * A stored answer as bytes for a shared tier, and back: the one place that knows both StoredBody's
 * fields and the stored layout, so a change of StoredBody touches this pair of functions only.
 * The bytes are sealed (entry-cipher.ts) before they leave the process.
 *
 * Layout (version 1): a 4-byte big-endian length, a JSON header of that many bytes (storedAt,
 * ETag, record ids and the two body parts' byte lengths), then the body parts as UTF-8, unescaped:
 * JSON-escaping a 24 KB body of quotes would cost more than the rest of the encoding together.
 */
import type { StoredBody } from './response-cache.ts';

/** A stored answer and when it was loaded from the upstream (freshness is judged from it, as in the LRU). */
export interface StoredEntry {
  body: StoredBody;
  storedAt: number;
}

interface Header {
  v: 1;
  storedAt: number;
  etag: string;
  resourceIds?: readonly string[];
  beforeBytes: number;
  /** null: the body has no Bundle id to refresh (StoredBody.after undefined). */
  afterBytes: number | null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The entry as bytes. */
export function encodeStoredEntry({ body, storedAt }: StoredEntry): Uint8Array<ArrayBuffer> {
  const before = encoder.encode(body.before);
  const after = body.after === undefined ? undefined : encoder.encode(body.after);
  const header: Header = { v: 1, storedAt, etag: body.etag, resourceIds: body.resourceIds, beforeBytes: before.length, afterBytes: after?.length ?? null };
  const head = encoder.encode(JSON.stringify(header));
  const bytes = new Uint8Array(4 + head.length + before.length + (after?.length ?? 0));
  new DataView(bytes.buffer).setUint32(0, head.length);
  bytes.set(head, 4);
  bytes.set(before, 4 + head.length);
  if (after !== undefined) bytes.set(after, 4 + head.length + before.length);
  return bytes;
}

/** The entry those bytes hold; undefined for anything that is not a whole version-1 entry. */
export function decodeStoredEntry(bytes: Uint8Array): StoredEntry | undefined {
  try {
    if (bytes.length < 4) return undefined;
    const headLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
    const header = JSON.parse(decoder.decode(bytes.subarray(4, 4 + headLength))) as Header;
    const start = 4 + headLength;
    const afterBytes = header.afterBytes ?? 0;
    if (header.v !== 1 || typeof header.storedAt !== 'number' || typeof header.etag !== 'string' || bytes.length !== start + header.beforeBytes + afterBytes) return undefined;
    const before = decoder.decode(bytes.subarray(start, start + header.beforeBytes));
    const after = header.afterBytes === null ? undefined : decoder.decode(bytes.subarray(start + header.beforeBytes));
    const body: StoredBody = { before, after, etag: header.etag };
    if (Array.isArray(header.resourceIds)) body.resourceIds = header.resourceIds;
    return { body, storedAt: header.storedAt };
  } catch {
    return undefined; // not UTF-8, not JSON: written by something else
  }
}
