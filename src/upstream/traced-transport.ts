/**
 * The header injection hook of tracing: each HTTP request to the upstream gets a client span, child
 * of the span the FHIR client sent it under, and carries that span's `traceparent` (and the caller's
 * `tracestate`). It wraps the raw transport, inside the resilient one, so each retry is its own
 * span, as OpenTelemetry's HTTP conventions have it, and the upstream's logs name the very sending
 * they saw. A request with no span (tracing off, no caller context) goes through untouched.
 */
import { FacadeError } from '../errors.ts';
import { networkFailureKind } from './failure-kind.ts';
import type { Span } from '../tracing/span.ts';
import type { Transport, TransportRequest, TransportResponse } from './transport.ts';

export function tracedTransport(inner: Transport): Transport {
  // Not async on the way through: without a span the request costs one property read here.
  return (request) => (request.trace === undefined ? inner(request) : sendTraced(inner, request, request.trace));
}

async function sendTraced(inner: Transport, request: TransportRequest, parent: Span): Promise<TransportResponse> {
  const span = parent.child(`GET ${request.partition}`, 'client');
  if (span.recording) describe(span, request);
  const headers: Record<string, string> = { ...request.headers, traceparent: span.traceparent };
  if (span.tracestate !== undefined) headers.tracestate = span.tracestate;
  try {
    const response = await inner({ ...request, headers });
    span.set('http.response.status_code', response.status);
    // A client span fails on any 4xx or 5xx (OpenTelemetry HTTP conventions): the status is its kind.
    if (response.status >= 400) span.fail(String(response.status));
    return response;
  } catch (error) {
    span.fail(failureKind(error, request.signal));
    throw error;
  } finally {
    span.end();
  }
}

/**
 * What a client span says of its request: the server (origin only), the resource type, the page,
 * the retry. Never the path past the base, nor the query: they hold ids, patient references and,
 * in a next link, whatever the server put there.
 */
function describe(span: Span, request: TransportRequest): void {
  const url = new URL(request.url);
  span.set('http.request.method', 'GET');
  span.set('server.address', url.hostname);
  span.set('server.port', Number(url.port || (url.protocol === 'https:' ? 443 : 80)));
  span.set('facade.upstream.resource_type', request.partition);
  if (request.page !== undefined) span.set('facade.upstream.page', request.page);
  if (request.attempt !== undefined && request.attempt > 1) span.set('http.request.resend_count', request.attempt - 1);
}

/** A failure's kind: the transport's own (too large, unknown encoding), a timeout, or the network's. */
function failureKind(error: unknown, signal: AbortSignal): string {
  if (error instanceof FacadeError) return error.reason ?? error.code;
  return signal.aborted ? 'timeout' : networkFailureKind(error);
}
