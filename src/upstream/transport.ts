/**
 * The one seam between the FHIR client and the network. The Node entry plugs in undici (fast,
 * pooled); an edge runtime plugs in the platform `fetch`. The client never imports either.
 */

/** One HTTP GET the FHIR client wants made. */
export interface TransportRequest {
  url: string;
  headers: Record<string, string>;
  signal: AbortSignal;
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
  return async ({ url, headers, signal }) => {
    const response = await fetchImpl(url, { method: 'GET', headers, signal, redirect: 'manual' });
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? undefined,
      body: await response.text(),
    };
  };
}
