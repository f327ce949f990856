/**
 * What the server span of a legacy request says when it ends: the route's name, never its URL.
 */
import type { Span } from './span.ts';

/** HTTP's methods; any other is `_OTHER`, so a caller cannot put what it likes in a span. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'CONNECT']);

export interface RequestFacts {
  method: string;
  /** The route's name (`DiagnosticReport.search`), or `healthz`, `metrics`, `openapi`, `unmatched`. */
  route: string;
  status: number;
  requestId: string;
  cache: string | undefined;
  upstreamPages: number | undefined;
  /** The catalog code of the error answered, if one was. */
  errorCode: string | undefined;
}

/** Names the request's span `<method> <route>` and ends it; a 5xx marks it failed (a 4xx is the caller's, not ours). */
export function endRequestSpan(span: Span, facts: RequestFacts): void {
  if (span.recording) {
    const method = KNOWN_METHODS.has(facts.method) ? facts.method : '_OTHER';
    span.rename(`${method} ${facts.route}`);
    span.set('http.request.method', method);
    span.set('http.response.status_code', facts.status);
    span.set('facade.route', facts.route);
    span.set('facade.request_id', facts.requestId);
    if (facts.cache !== undefined) span.set('facade.cache.outcome', facts.cache);
    if (facts.upstreamPages !== undefined) span.set('facade.upstream.pages', facts.upstreamPages);
    if (facts.errorCode !== undefined) {
      if (facts.status >= 500) span.fail(facts.errorCode);
      else span.set('error.type', facts.errorCode);
    }
  }
  span.end();
}
