/**
 * The one seam between the FHIR client and the network. The Node entry plugs in undici (fast,
 * pooled); an edge runtime plugs in the platform `fetch`. The client never imports either.
 */
import { FacadeError } from '../errors.ts';
import { readLimited } from '../ports/bounded-body.ts';
import type { Span } from '../tracing/span.ts';

/** One HTTP GET the FHIR client wants made. */
export interface TransportRequest {
  url: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  /** Largest body accepted, decoded; a larger one fails with `upstream-too-large` instead of exhausting memory. */
  maxBodyBytes: number;
  /** When the whole read or search this request belongs to must be done (`Date.now()` time, ms). */
  deadline: number;
  /** The class of work it belongs to (the FHIR resource type searched or read), for the bulkhead. */
  partition: string;
  /** The span it is sent under, when there is one: its `traceparent` goes with it (traced-transport.ts). */
  trace?: Span;
  /** Which page of its search it fetches, from 1 (1 for a read), for its span. */
  page?: number;
  /** Which sending of it this is, from 1: the resilient transport sets it on retries. */
  attempt?: number;
}

/** The parts of an upstream answer the client uses; the body is read whole, decoded, as text. */
export interface TransportResponse {
  status: number;
  contentType: string | undefined;
  body: string;
  /** A response header (name in lower case), for the retry hints of a 429 or 503. */
  header(name: string): string | undefined;
}

export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

/**
 * The codings `fetch` decodes itself in workerd (measured: gzip and br are decoded, with
 * `Content-Encoding` and the compressed `Content-Length` left on the response; deflate and unknown
 * codings come through raw). Only these are asked for, so an answer in any other coding is refused.
 */
const FETCH_DECODES = new Set(['gzip', 'br']);

/** A Transport over a WHATWG `fetch` (the platform's on Workers, or any injected one). */
export function fetchTransport(fetchImpl: typeof fetch = fetch): Transport {
  return async ({ url, headers, signal, maxBodyBytes }) => {
    // workerd sends no Accept-Encoding of its own: without one, every answer would come uncompressed.
    const asked = { ...headers, 'accept-encoding': [...FETCH_DECODES].join(', ') };
    // Redirects are not followed: the token must only reach the configured origin (docs/decisions.md).
    const response = await fetchImpl(url, { method: 'GET', headers: asked, signal, redirect: 'manual' });
    const codings = contentCodings(response.headers.get('content-encoding') ?? undefined);
    if (codings.length > 1 || codings.some((coding) => !FETCH_DECODES.has(coding))) {
      await response.body?.cancel();
      throw unknownEncoding();
    }
    // The declared length of an encoded body is its compressed size: only the decoded bytes count.
    const declared = codings.length === 0 ? Number(response.headers.get('content-length') ?? 0) : 0;
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? undefined,
      body: await readLimited(response.body, declared, maxBodyBytes),
      header: (name) => response.headers.get(name) ?? undefined,
    };
  };
}

/**
 * The content codings of a `Content-Encoding` value, in the order they were applied, lower case;
 * `identity` dropped and `x-gzip` read as `gzip` (RFC 9110 8.4.1.3).
 */
export function contentCodings(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .map((coding) => (coding === 'x-gzip' ? 'gzip' : coding));
}

/** An answer in a coding the transport cannot decode: a 502, never its bytes read as text. */
export function unknownEncoding(): FacadeError {
  return new FacadeError('upstream-bad-body', 'the answer is in an unsupported content encoding', { reason: 'unknown-encoding' });
}
