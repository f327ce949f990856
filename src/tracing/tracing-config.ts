/**
 * Tracing as the configuration asks for it, the same on Node and on Workers: with an OTLP endpoint
 * (OpenTelemetry's standard variables), spans recorded and exported; without one, nothing recorded
 * and only a caller's trace context forwarded upstream (docs/decisions.md, "Tracing").
 */
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import { OtlpHttpExporter } from './otlp-exporter.ts';
import { forwardingTracer, recordingTracer, type RequestTracer } from './span.ts';

/** The tracer of the app, and what the runtime calls to send what is queued. */
export interface Tracing {
  /** Whether spans are recorded and exported (an OTLP endpoint is configured). */
  recording: boolean;
  tracer: RequestTracer;
  /** Sends the spans queued now (Workers: after each request, under `waitUntil`). Never rejects. */
  flush(): Promise<void>;
  /** Sends what is left and stops (Node: when the service closes). Never rejects. */
  shutdown(): Promise<void>;
}

const TRACING_OFF: Tracing = { recording: false, tracer: forwardingTracer, flush: async () => {}, shutdown: async () => {} };

export interface TracingParts {
  metrics: Metrics;
  logger: Logger;
  /** Whether timers outlive the request that set them (Node); on Workers the entry flushes instead. */
  timersOutliveRequests: boolean;
  fetch?: typeof fetch;
}

export function tracingFor(config: Config, parts: TracingParts): Tracing {
  const url = tracesUrl(config);
  if (url === undefined || config.OTEL_SDK_DISABLED === 'true') return TRACING_OFF;
  const { metrics, logger } = parts;
  // One warning when exports start failing and one line when they work again, not one per batch.
  let failing = false;
  const exporter = new OtlpHttpExporter({
    url,
    headers: otlpHeaders(config.OTEL_EXPORTER_OTLP_HEADERS),
    serviceName: config.OTEL_SERVICE_NAME,
    maxQueueSize: config.OTEL_BSP_MAX_QUEUE_SIZE,
    maxBatchSize: Math.min(config.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, config.OTEL_BSP_MAX_QUEUE_SIZE),
    scheduleDelayMs: parts.timersOutliveRequests ? config.OTEL_BSP_SCHEDULE_DELAY : undefined,
    timeoutMs: config.OTEL_EXPORTER_OTLP_TIMEOUT,
    fetch: parts.fetch,
    onExported: (spans) => {
      metrics.traceSpansExported.inc({}, spans);
      if (failing) logger('info', 'trace export recovered');
      failing = false;
    },
    onDropped: (spans, reason) => metrics.traceSpansDropped.inc({ reason }, spans),
    onExportFailed: (reason) => {
      if (!failing) logger('warn', 'trace export failing', { reason });
      failing = true;
    },
  });
  return { recording: true, tracer: recordingTracer(exporter.enqueue), flush: () => exporter.flush(), shutdown: () => exporter.shutdown() };
}

/**
 * Where spans go, as OpenTelemetry's variables say: the traces endpoint as it is, else
 * `v1/traces` under the general endpoint.
 */
export function tracesUrl(config: Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'>): string | undefined {
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined) return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (base === undefined) return undefined;
  return `${base}${base.endsWith('/') ? '' : '/'}v1/traces`;
}

/** `OTEL_EXPORTER_OTLP_HEADERS`: `name=value` pairs, comma-separated, values percent-encoded (checked in src/config.ts). */
export function otlpHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (text === undefined) return headers;
  for (const pair of text.split(',')) {
    const at = pair.indexOf('=');
    if (at === -1) continue;
    headers[pair.slice(0, at).trim().toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}
