/**
 * What every request gets around its handler: an id (`x-request-id`), its span, the URL length
 * check, the error answer, the metrics, the log line and (legacy routes) the audit line.
 *
 * A wrapper around each handler rather than Hono middleware: with no middleware a route has one
 * handler, which Hono calls directly, and a handler that answers at once (a cache hit) returns its
 * Response without a promise, which @hono/node-server writes at once too (docs/performance.md).
 */
import type { Context, Handler } from 'hono';
import type { AuditSink, AuditRecord } from './audit.ts';
import type { CacheOutcome } from './cache/response-cache.ts';
import { FacadeError, toFacadeError, toOperationOutcome } from './errors.ts';
import type { Logger } from './log.ts';
import type { Metrics } from './metrics.ts';
import { endRequestSpan } from './tracing/request-span.ts';
import type { RequestTracer, Span } from './tracing/span.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** What a handler records about its request, for the log line, the metrics, the audit line and the span. */
export interface RequestRecord {
  readonly requestId: string;
  /** The request's span, when it has one (tracing on, or a caller's context to forward). */
  readonly span: Span | undefined;
  routeName: string | undefined;
  upstreamPages: number | undefined;
  cache: CacheOutcome | undefined;
  /** Set on legacy routes only: what the audit line of the request says. */
  audit: Omit<AuditRecord, 'requestId' | 'route' | 'method' | 'status' | 'cache'> | undefined;
}

/**
 * A handler given its request's record. `setsRequestId`: it puts `x-request-id` in its own answers
 * (the legacy routes, whose answers are built without Hono's header object); for the others it is
 * set before they run.
 */
export type ScopedHandler = ((c: Context, record: RequestRecord) => Response | Promise<Response>) & { setsRequestId?: true };

export interface ScopeOptions {
  logger: Logger;
  metrics: Metrics;
  audit: AuditSink;
  tracer: RequestTracer;
  /** Longest request URL accepted; longer ones get 414. */
  maxUrlLength: number;
}

/** Wraps a handler in its request's scope; answers without a promise when the handler does. */
export function inRequestScope(options: ScopeOptions, handler: ScopedHandler): Handler {
  return (c) => {
    const started = performance.now();
    const record: RequestRecord = {
      requestId: crypto.randomUUID(),
      span: options.tracer.startRequest(c.req.header('traceparent'), c.req.header('tracestate')),
      routeName: undefined,
      upstreamPages: undefined,
      cache: undefined,
      audit: undefined,
    };
    let answer: Response | Promise<Response>;
    let failure: unknown;
    try {
      if (handler.setsRequestId !== true) c.header('x-request-id', record.requestId);
      if (c.req.url.length > options.maxUrlLength) throw new FacadeError('uri-too-long', `at most ${options.maxUrlLength} characters`);
      answer = handler(c, record);
    } catch (error) {
      failure = error;
      answer = errorAnswer(c, error, record, options.logger);
    }
    if (answer instanceof Promise) {
      return answer.then(
        (response) => finish(c, response, record, undefined, started, options),
        (error: unknown) => finish(c, errorAnswer(c, error, record, options.logger), record, error, started, options),
      );
    }
    return finish(c, answer, record, failure, started, options);
  };
}

/** The error answer: an OperationOutcome, never cached by anyone; a 5xx also gets its own log line. */
function errorAnswer(c: Context, error: unknown, record: RequestRecord, logger: Logger): Response {
  const facadeError = toFacadeError(error);
  if (facadeError.status >= 500) {
    // The kind of failure (`connection-refused`, `http-503`, `not-json`, …), else the class of what was thrown: never a message, which may hold a URL or a body.
    const cause = facadeError.reason ?? (facadeError.cause instanceof Error ? facadeError.cause.name : undefined);
    logger('error', 'request failed', { requestId: record.requestId, route: record.routeName, code: facadeError.code, cause });
  }
  c.header('x-request-id', record.requestId);
  // A 503 says when to come back (docs/decisions.md, "Upstream resilience").
  if (facadeError.retryAfterSeconds !== undefined) c.header('retry-after', String(facadeError.retryAfterSeconds));
  // Headers set before the throw (the 405's Allow) are kept by c.body.
  // no-store: an error may answer a URL that carries a token; no cache of any kind keeps it.
  return c.body(JSON.stringify(toOperationOutcome(facadeError)), facadeError.status as 400, { 'content-type': JSON_TYPE, 'cache-control': 'no-store' });
}

/** Counts the request, writes its log and audit lines and ends its span, once its answer is known. */
function finish(c: Context, response: Response, record: RequestRecord, error: unknown, started: number, options: ScopeOptions): Response {
  const route = record.routeName ?? 'unmatched';
  const { status } = response;
  const { method } = c.req;
  options.metrics.requests.inc({ route, status: String(status) });
  // Only the route's name is logged, never the URL: its query holds the token and patient ids.
  options.logger('info', 'request', {
    requestId: record.requestId,
    method,
    route,
    status,
    durationMs: Math.round(performance.now() - started),
    cache: record.cache,
    upstreamCalls: record.upstreamPages,
    traceId: record.span?.traceId,
  });
  if (record.audit !== undefined) {
    options.audit({ requestId: record.requestId, route, method, status, ...record.audit, cache: record.cache });
  }
  const { span } = record;
  if (span !== undefined) {
    const errorCode = error === undefined || !span.recording ? undefined : toFacadeError(error).code;
    endRequestSpan(span, { method, route, status, requestId: record.requestId, cache: record.cache, upstreamPages: record.upstreamPages, errorCode });
  }
  return response;
}
