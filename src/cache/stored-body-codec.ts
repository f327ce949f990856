/**
 * A stored answer as bytes for a shared tier, and back: the one place that knows both StoredBody's
 * fields and the stored layout, so a change of StoredBody touches this pair of functions only.
 * The bytes are sealed (entry-cipher.ts) before they leave the process.
 *
 * Layout (version 2): a 4-byte big-endian length, a JSON header of that many bytes (storedAt,
 * ETag, record ids, the body's length and where its Bundle id is), then the body's bytes as sent:
 * JSON-escaping a 24 KB body of quotes would cost more than the rest of the encoding together.
 * Version 1 (the body in two strings around the Bundle id) is read as a miss.
 */
import type { StoredBody } from './response-cache.ts';

/** A stored answer and when it was loaded from the upstream (freshness is judged from it, as in the LRU). */
export interface StoredEntry {
  body: StoredBody;
  storedAt: number;
}

interface Header {
  v: 2;
  storedAt: number;
  etag: string;
  resourceIds?: readonly string[];
  bodyBytes: number;
  /** [start, end) of the Bundle id in the body; null: the body has none (StoredBody.bundleId undefined). */
  bundleId: [number, number] | null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The entry as bytes. */
export function encodeStoredEntry({ body, storedAt }: StoredEntry): Uint8Array<ArrayBuffer> {
  const place = body.bundleId;
  const header: Header = {
    v: 2,
    storedAt,
    etag: body.etag,
    resourceIds: body.resourceIds,
    bodyBytes: body.bytes.byteLength,
    bundleId: place === undefined ? null : [place.start, place.end],
  };
  const head = encoder.encode(JSON.stringify(header));
  const bytes = new Uint8Array(4 + head.length + body.bytes.byteLength);
  new DataView(bytes.buffer).setUint32(0, head.length);
  bytes.set(head, 4);
  bytes.set(body.bytes, 4 + head.length);
  return bytes;
}

/** The entry those bytes hold; undefined for anything that is not a whole version-2 entry. */
export function decodeStoredEntry(bytes: Uint8Array): StoredEntry | undefined {
  try {
    if (bytes.length < 4) return undefined;
    const headLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
    if (4 + headLength > bytes.length) return undefined;
    const header = JSON.parse(decoder.decode(bytes.subarray(4, 4 + headLength))) as Header;
    const bodyStart = 4 + headLength;
    if (header.v !== 2 || typeof header.storedAt !== 'number' || typeof header.etag !== 'string' || bytes.length !== bodyStart + header.bodyBytes)
      return undefined;
    // A copy of its own: the stored bytes are shared by every response and must not pin the whole read buffer.
    const bodyBytes = bytes.slice(bodyStart);
    const bundleId = bundleIdIn(header.bundleId, bodyBytes.byteLength);
    if (bundleId === false) return undefined;
    const body: StoredBody = { bytes: bodyBytes, bundleId, etag: header.etag };
    if (Array.isArray(header.resourceIds)) body.resourceIds = header.resourceIds;
    return { body, storedAt: header.storedAt };
  } catch {
    return undefined; // not UTF-8, not JSON: written by something else
  }
}

/** The Bundle id's place from a header, false when it does not fit in a body of `length` bytes. */
function bundleIdIn(place: unknown, length: number): StoredBody['bundleId'] | false {
  if (place === null) return undefined;
  if (!Array.isArray(place) || place.length !== 2) return false;
  const [start, end] = place as unknown[];
  if (!Number.isInteger(start) || !Number.isInteger(end)) return false;
  const [from, to] = [start as number, end as number];
  return from >= 0 && from <= to && to <= length ? { start: from, end: to } : false;
}
