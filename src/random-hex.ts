/**
 * Random ids in lowercase hex from a pool of random bytes filled by the platform's CSPRNG
 * (`crypto.getRandomValues`, as `crypto.randomUUID` is): a Bundle id per response without a UUID
 * built and its dashes removed (that `replaceAll` cost ~0.7 µs a hit: docs/performance.md).
 */
const POOL_BYTES = 4096;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

const pool = new Uint8Array(POOL_BYTES);
let used = POOL_BYTES;

/** `bytes` random bytes (at most POOL_BYTES) as 2 × `bytes` lowercase hex characters. */
export function randomHex(bytes: number): string {
  if (used + bytes > POOL_BYTES) {
    crypto.getRandomValues(pool);
    used = 0;
  }
  let hex = '';
  for (let at = used; at < used + bytes; at += 1) hex += HEX[pool[at]!]!;
  used += bytes;
  return hex;
}
