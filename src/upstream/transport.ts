/**
 * The one seam between the FHIR client and the network. The Node entry plugs in undici (fast,
 * pooled); an edge runtime plugs in the platform `fetch`. The client never imports either.
 */
import { FacadeError } from '../errors.ts';

/** One HTTP GET the FHIR client wants made. */
export interface TransportRequest {
  url: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  /** Largest body accepted; a larger one fails with `upstream-too-large` instead of exhausting memory. */
  maxBodyBytes: number;
}

/** The parts of an upstream answer the client uses; the body is read whole, as text. */
export interface TransportResponse {
  status: number;
  contentType: string | undefined;
  body: string;
}

export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

/** A Transport over a WHATWG `fetch` (the platform's on Workers, or any injected one). */
export function fetchTransport(fetchImpl: typeof fetch = fetch): Transport {
  return async ({ url, headers, signal, maxBodyBytes }) => {
    // Redirects are not followed: the token must only reach the configured origin (docs/decisions.md).
    const response = await fetchImpl(url, { method: 'GET', headers, signal, redirect: 'manual' });
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? undefined,
      body: await readLimited(response.body, Number(response.headers.get('content-length') ?? 0), maxBodyBytes),
    };
  };
}

/** Reads a body stream as UTF-8 text, failing as soon as it passes `maxBytes`. */
export async function readLimited(
  body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array> | null,
  declaredBytes: number,
  maxBytes: number,
): Promise<string> {
  if (declaredBytes > maxBytes) throw tooLarge(maxBytes);
  const decoder = new TextDecoder();
  if (body === null) return '';
  // Chunks are kept and decoded once at the end: one decode of the whole body is cheaper than one per chunk.
  const chunks: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    received += chunk.byteLength;
    if (received > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  const whole = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decoder.decode(whole);
}

function tooLarge(maxBytes: number): FacadeError {
  return new FacadeError('upstream-too-large', `more than ${maxBytes} bytes`, { reason: 'too-large' });
}
