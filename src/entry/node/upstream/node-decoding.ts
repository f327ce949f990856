/**
 * Node-only: decodes a compressed upstream body as a stream (undici's `request` hands over the
 * bytes as sent). Decoding is pulled by the reader, so a reader that stops at the size bound stops
 * the decompression too: a decompression bomb costs the bound, never its decoded size.
 */
import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { FacadeError } from '../../../errors.ts';
import { contentCodings, unknownEncoding } from '../../../upstream/transport.ts';

/** What undici's transport asks for: every coding Node decodes. */
export const NODE_ACCEPT_ENCODING = 'gzip, deflate, br';

const DECODERS: Readonly<Record<string, () => Transform>> = {
  // Gunzip reads concatenated gzip members as one body, as RFC 1952 allows.
  gzip: () => createGunzip(),
  // `deflate` is the zlib format (RFC 9110 8.4.1.2); raw deflate fails as a bad body.
  deflate: () => createInflate(),
  br: () => createBrotliDecompress(),
};

/** More than two stacked codings is no real server's answer, and each costs a decoder's memory. */
const MAX_CODINGS = 2;

/** The decoded body stream for a `Content-Encoding` value (the body itself when there is none). */
export function decodedBody(body: Readable, contentEncoding: string | undefined): Readable {
  const codings = contentCodings(contentEncoding);
  if (codings.length > MAX_CODINGS) throw unknownEncoding();
  // Codings are listed in the order they were applied, so they are undone from the last.
  const decoders = codings.reverse().map((coding) => {
    const create = Object.hasOwn(DECODERS, coding) ? DECODERS[coding] : undefined;
    if (create === undefined) throw unknownEncoding();
    return create();
  });
  if (decoders.length === 0) return body;
  // pipeline() destroys every stage when one fails or the reader stops early.
  return pipeline([body, ...decoders], () => {}) as unknown as Readable;
}

/**
 * A decoder's error (corrupt or truncated data) as the 502 it is; anything else (a network error
 * or the deadline, passed down the pipeline) unchanged. zlib and brotli errors carry a numeric
 * `errno` and a `Z_…` or `ERR__ERROR_…` code.
 */
export function decodingFailure(error: unknown): unknown {
  const { errno, code } = (error ?? {}) as { errno?: unknown; code?: unknown };
  if (typeof errno !== 'number' || typeof code !== 'string' || !/^(Z_|ERR__ERROR)/.test(code)) return error;
  return new FacadeError('upstream-bad-body', 'the answer is not validly encoded', { cause: error, reason: 'bad-encoding' });
}
