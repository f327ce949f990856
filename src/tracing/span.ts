/**
 * Spans, passed explicitly from the request down to the transport: there is no async context to
 * carry them on Workers without a Node-only module, and explicit passing means that with tracing
 * off and no caller context there is nothing to pass at all (`undefined`, no object built).
 *
 * Three kinds: a recording span (tracing on, trace sampled), an unsampled one (tracing on, the
 * caller said not to record: ids are still made, so the upstream sees a well-formed context), and
 * the caller's context forwarded untouched (tracing off).
 */
import { FacadeError } from '../errors.ts';
import { formatTraceparent, newSpanId, newTraceId, parseTraceparent, validTracestate } from './trace-context.ts';

export type SpanKind = 'internal' | 'server' | 'client';

/**
 * Every attribute a span may carry: an allow-list, as a type, so that nothing else can be set.
 * Never a URL with its path or query, an id, a patient reference or a token (docs/decisions.md,
 * "Tracing"): those are what the legacy interface's URLs hold.
 */
export interface SpanAttributes {
  /** The request's method, `_OTHER` for one HTTP does not define. */
  'http.request.method'?: string;
  'http.response.status_code'?: number;
  /** Retries of one upstream request: absent on the first sending. */
  'http.request.resend_count'?: number;
  /** The upstream server's host and port, from the configured base: never its path. */
  'server.address'?: string;
  'server.port'?: number;
  /** What went wrong, as a kind: a catalog code (`upstream-timeout`), a failure kind (`connection-refused`), a status. */
  'error.type'?: string;
  /** The legacy operation's name in the route table, e.g. `DiagnosticReport.search`. */
  'facade.route'?: string;
  /** The random id of the request, as in its log line and `x-request-id`. */
  'facade.request_id'?: string;
  /** How the response cache answered: hit, stale, miss (src/cache/response-cache.ts). */
  'facade.cache.outcome'?: string;
  /** Upstream pages the request read. */
  'facade.upstream.pages'?: number;
  /** The FHIR resource type an upstream request searched or read (`metadata` for the statement). */
  'facade.upstream.resource_type'?: string;
  /** Which page of its search an upstream request fetched, from 1. */
  'facade.upstream.page'?: number;
  /** How many records a mapping turned into legacy entries. */
  'facade.records'?: number;
}

export type AttributeName = keyof SpanAttributes;

/** One span of a request's work, or the context it forwards. */
export interface Span {
  readonly traceId: string;
  /** Whether this span is exported: set attributes only on one that is (the rest is wasted work). */
  readonly recording: boolean;
  /** The `traceparent` an upstream request made under this span carries. */
  readonly traceparent: string;
  /** The caller's `tracestate`, passed on unchanged. */
  readonly tracestate: string | undefined;
  /** A span of part of this span's work (the forwarded context returns itself: nothing is recorded). */
  child(name: string, kind: SpanKind): Span;
  set<Name extends AttributeName>(name: Name, value: NonNullable<SpanAttributes[Name]>): void;
  rename(name: string): void;
  /** Marks the span failed, with the kind of failure. */
  fail(errorType: string): void;
  end(): void;
}

/** What the exporter reads of an ended span. */
export interface EndedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: SpanKind;
  readonly attributes: Readonly<SpanAttributes>;
  readonly failed: boolean;
  /** Epoch milliseconds, fractional. */
  readonly startMs: number;
  readonly endMs: number;
}

/** Where ended spans go (the exporter's queue). */
export type SpanSink = (span: EndedSpan) => void;

/**
 * One clock per trace: the epoch time of its start plus `performance.now()` since, so its spans
 * line up to the microsecond and never drift apart, whatever the wall clock does meanwhile.
 */
class TraceClock {
  readonly #epochMs = Date.now();
  readonly #startPerf = performance.now();
  now(): number {
    return this.#epochMs + (performance.now() - this.#startPerf);
  }
}

class RecordingSpan implements Span, EndedSpan {
  readonly recording = true;
  readonly spanId = newSpanId();
  readonly attributes: SpanAttributes = {};
  readonly startMs: number;
  endMs = 0;
  failed = false;
  #ended = false;

  constructor(
    readonly traceId: string,
    readonly parentSpanId: string | undefined,
    readonly tracestate: string | undefined,
    public name: string,
    readonly kind: SpanKind,
    readonly clock: TraceClock,
    readonly sink: SpanSink,
  ) {
    this.startMs = clock.now();
  }

  get traceparent(): string {
    return formatTraceparent(this.traceId, this.spanId, true);
  }

  child(name: string, kind: SpanKind): Span {
    return new RecordingSpan(this.traceId, this.spanId, this.tracestate, name, kind, this.clock, this.sink);
  }

  set<Name extends AttributeName>(name: Name, value: NonNullable<SpanAttributes[Name]>): void {
    this.attributes[name] = value;
  }

  rename(name: string): void {
    this.name = name;
  }

  fail(errorType: string): void {
    this.failed = true;
    this.attributes['error.type'] = errorType;
  }

  end(): void {
    if (this.#ended) return; // a span is exported once, whatever ends it twice
    this.#ended = true;
    this.endMs = this.clock.now();
    this.sink(this);
  }
}

/** Tracing on, the caller not sampling: well-formed ids for the upstream, nothing recorded. */
class UnsampledSpan implements Span {
  readonly recording = false;
  readonly #spanId = newSpanId();
  constructor(
    readonly traceId: string,
    readonly tracestate: string | undefined,
  ) {}
  get traceparent(): string {
    return formatTraceparent(this.traceId, this.#spanId, false);
  }
  child(): Span {
    return new UnsampledSpan(this.traceId, this.tracestate);
  }
  set(): void {}
  rename(): void {}
  fail(): void {}
  end(): void {}
}

/** Tracing off: the caller's context goes upstream as it came, as through a proxy that does not trace. */
class ForwardedContext implements Span {
  readonly recording = false;
  constructor(
    readonly traceId: string,
    readonly traceparent: string,
    readonly tracestate: string | undefined,
  ) {}
  child(): Span {
    return this;
  }
  set(): void {}
  rename(): void {}
  fail(): void {}
  end(): void {}
}

/** Starts the span of each incoming request from its trace headers. */
export interface RequestTracer {
  /** The request's span (named when it ends: src/tracing/request-span.ts); `undefined` when there is nothing to record nor to forward. */
  startRequest(traceparent: string | undefined, tracestate: string | undefined): Span | undefined;
}

/** Tracing off: nothing is recorded; a caller's valid context is forwarded upstream unchanged. */
export const forwardingTracer: RequestTracer = {
  startRequest(traceparent, tracestate) {
    const caller = parseTraceparent(traceparent);
    return caller === undefined ? undefined : new ForwardedContext(caller.traceId, traceparent!.trim(), validTracestate(tracestate));
  },
};

/**
 * Tracing on: every request gets a server span, continuing the caller's trace when its
 * `traceparent` is valid (parent-based sampling: the caller's choice not to record is followed),
 * else starting a new trace.
 */
export function recordingTracer(sink: SpanSink): RequestTracer {
  return {
    startRequest(traceparent, tracestate) {
      const caller = parseTraceparent(traceparent);
      if (caller === undefined) return new RecordingSpan(newTraceId(), undefined, undefined, 'request', 'server', new TraceClock(), sink);
      const state = validTracestate(tracestate);
      if (!caller.sampled) return new UnsampledSpan(caller.traceId, state);
      return new RecordingSpan(caller.traceId, caller.spanId, state, 'request', 'server', new TraceClock(), sink);
    },
  };
}

/** Runs `work` in a child span of `parent` (or with none when there is no parent), ending it however `work` ends. */
export async function inChildSpan<T>(parent: Span | undefined, name: string, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (parent === undefined) return work(undefined);
  const span = parent.child(name, 'internal');
  try {
    return await work(span);
  } catch (error) {
    span.fail(errorTypeOf(error));
    throw error;
  } finally {
    span.end();
  }
}

/** The kind of a failure for `error.type`: a catalog code, else the class of what was thrown, never its message. */
export function errorTypeOf(error: unknown): string {
  if (error instanceof FacadeError) return error.code;
  return error instanceof Error ? error.name : 'unknown';
}
