/**
 * Ended spans as an OTLP/HTTP JSON `ExportTraceServiceRequest` (opentelemetry-proto,
 * `collector/trace/v1`; JSON encoding per the OTLP 1.x specification: trace and span ids as hex,
 * not base64; 64-bit integers and nanosecond times as decimal strings; enums as their numbers).
 */
import type { EndedSpan, SpanKind } from './span.ts';

/** `Span.SpanKind` of trace.proto. */
const KIND: Readonly<Record<SpanKind, number>> = { internal: 1, server: 2, client: 3 };
/** `Status.StatusCode` of trace.proto: UNSET 0, ERROR 2 (we never claim OK: that is for the application to say). */
const STATUS_ERROR = 2;
/** The instrumentation scope: this service's own tracing. */
const SCOPE = { name: 'clinical-records-facade' };

type AnyValue = { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean };

/** The request body for a batch of spans of one service. */
export function exportTraceServiceRequest(serviceName: string, spans: readonly EndedSpan[]): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [keyValue('service.name', serviceName), keyValue('telemetry.sdk.name', 'clinical-records-facade')] },
        scopeSpans: [{ scope: SCOPE, spans: spans.map(otlpSpan) }],
      },
    ],
  });
}

function otlpSpan(span: EndedSpan): object {
  const attributes = Object.entries(span.attributes).map(([key, value]) => keyValue(key, value as string | number | boolean));
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    // The caller's tracestate is not exported: it is the caller's vendors' data, meant for the next hop only.
    ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
    name: span.name,
    kind: KIND[span.kind],
    startTimeUnixNano: nanos(span.startMs),
    endTimeUnixNano: nanos(span.endMs),
    attributes,
    status: span.failed ? { code: STATUS_ERROR } : {},
  };
}

function keyValue(key: string, value: string | number | boolean): { key: string; value: AnyValue } {
  if (typeof value === 'string') return { key, value: { stringValue: value } };
  if (typeof value === 'boolean') return { key, value: { boolValue: value } };
  return { key, value: Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value } };
}

/** Epoch milliseconds (fractional) as nanoseconds in a decimal string, to the microsecond: beyond 2^53 as a number. */
function nanos(ms: number): string {
  return `${Math.round(ms * 1000)}000`;
}
