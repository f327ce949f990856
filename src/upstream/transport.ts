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
  if (body === null) return '';
  const decoder = new TextDecoder();
  let received = 0;
  let text = '';
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    received += chunk.byteLength;
    if (received > maxBytes) throw tooLarge(maxBytes);
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

function tooLarge(maxBytes: number): FacadeError {
  return new FacadeError('upstream-too-large', `more than ${maxBytes} bytes`);
}
