/**
 * The service's metrics in Prometheus text format (GET /metrics). A small registry of its own, with
 * no Node-only dependency, so the same code runs at the edge. Labels are route names, statuses and
 * outcomes only: never a token, a patient id or a URL.
 */

type Labels = Record<string, string>;

const UPSTREAM_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const PAGES_BUCKETS = [1, 2, 3, 5, 10, 20, 50, 100];

class Counter {
  readonly values = new Map<string, number>();
  inc(labels: Labels, by = 1): void {
    const key = labelText(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }
}

/** Label sets are few (routes x statuses): their text is built once each, not per request. */
const labelTexts = new Map<string, string>();

class Histogram {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(readonly buckets: number[]) {
    this.counts = buckets.map(() => 0);
  }
  observe(value: number): void {
    this.sum += value;
    this.count += 1;
    this.buckets.forEach((bound, index) => {
      if (value <= bound) this.counts[index]! += 1;
    });
  }
}

/** Everything the service counts. */
export class Metrics {
  readonly requests = new Counter();
  readonly cacheEvents = new Counter();
  /** Per shared tier (src/cache/sealed-tier.ts): hits, misses, stores, errors, timeouts, skips. */
  readonly cacheTierEvents = new Counter();
  readonly upstreamSeconds = new Histogram(UPSTREAM_SECONDS_BUCKETS);
  readonly upstreamPages = new Histogram(PAGES_BUCKETS);
  /** Includes the upstream did not carry out, fetched by other searches (src/pipeline/plans/). */
  readonly upstreamFallbacks = new Counter();
  // Upstream resilience (src/upstream/resilient-transport.ts); labels: statuses, resource types, the configured origin.
  readonly upstreamRetries = new Counter();
  readonly upstreamRetryWaitSeconds = new Counter();
  readonly upstreamRetryGiveUps = new Counter();
  readonly upstreamQueued = new Counter();
  readonly upstreamBulkheadRejections = new Counter();
  readonly upstreamCircuitTransitions = new Counter();
  readonly upstreamCircuitRejections = new Counter();
  // Tracing (src/tracing/): spans sent to the collector, and spans lost (queue full, export failed, after shutdown).
  readonly traceSpansExported = new Counter();
  readonly traceSpansDropped = new Counter();
  /** Read at scrape time: the circuit state of each upstream origin. */
  upstreamCircuitStates: () => ReadonlyMap<string, string> = () => new Map();

  /** The Prometheus text exposition; `gauges` are read at scrape time (cache size). */
  render(gauges: Record<string, { help: string; value: number }> = {}): string {
    const lines: string[] = [];
    counter(lines, 'facade_requests_total', 'Legacy requests by route and status.', this.requests);
    counter(lines, 'facade_cache_events_total', 'Response cache hits, misses, stale answers and evictions.', this.cacheEvents);
    counter(
      lines,
      'facade_cache_tier_events_total',
      'Shared cache tier (Redis, edge cache) hits, misses, stores, errors, timeouts and skips, by tier.',
      this.cacheTierEvents,
    );
    histogram(lines, 'facade_upstream_request_duration_seconds', 'Duration of each upstream FHIR request.', this.upstreamSeconds);
    histogram(lines, 'facade_upstream_pages', 'Upstream pages read per legacy request that reached the upstream.', this.upstreamPages);
    counter(
      lines,
      'facade_upstream_fallbacks_total',
      'Includes and revincludes the upstream did not carry out, fetched by other searches.',
      this.upstreamFallbacks,
    );
    resilience(lines, this);
    counter(lines, 'facade_trace_spans_exported_total', 'Spans accepted by the OTLP collector.', this.traceSpansExported);
    counter(lines, 'facade_trace_spans_dropped_total', 'Spans not exported, by reason: queue-full, export-failed, shut-down.', this.traceSpansDropped);
    for (const [name, gauge] of Object.entries(gauges)) {
      lines.push(`# HELP ${name} ${gauge.help}`, `# TYPE ${name} gauge`, `${name} ${gauge.value}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

function counter(lines: string[], name: string, help: string, metric: Counter): void {
  lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
  for (const [labels, value] of metric.values) lines.push(`${name}${labels} ${value}`);
}

function histogram(lines: string[], name: string, help: string, metric: Histogram): void {
  lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`);
  for (const [index, bound] of metric.buckets.entries()) lines.push(`${name}_bucket{le="${bound}"} ${metric.counts[index]}`);
  lines.push(`${name}_bucket{le="+Inf"} ${metric.count}`, `${name}_sum ${metric.sum}`, `${name}_count ${metric.count}`);
}

function labelText(labels: Labels): string {
  let id = '';
  for (const name in labels) id += `${name}\u0000${labels[name]}\u0000`;
  let text = labelTexts.get(id);
  if (text === undefined) {
    const parts = Object.entries(labels).map(([name, value]) => `${name}="${value.replace(/["\\\n]/g, '_')}"`);
    text = parts.length > 0 ? `{${parts.join(',')}}` : '';
    labelTexts.set(id, text);
  }
  return text;
}

const CIRCUIT_STATES = ['closed', 'open', 'half-open'];

function resilience(lines: string[], metrics: Metrics): void {
  counter(lines, 'facade_upstream_retries_total', 'Upstream requests retried after a throttled answer, by the status retried.', metrics.upstreamRetries);
  counter(
    lines,
    'facade_upstream_retry_wait_seconds_total',
    'Time spent waiting before retries of throttled upstream requests.',
    metrics.upstreamRetryWaitSeconds,
  );
  counter(
    lines,
    'facade_upstream_retry_give_ups_total',
    'Throttled upstream requests given up: the wait would pass the deadline, or attempts ran out.',
    metrics.upstreamRetryGiveUps,
  );
  counter(lines, 'facade_upstream_queued_total', 'Upstream requests that waited for room in the bulkhead, by resource type.', metrics.upstreamQueued);
  counter(
    lines,
    'facade_upstream_bulkhead_rejections_total',
    'Upstream requests refused (503) after waiting in vain for room, by resource type.',
    metrics.upstreamBulkheadRejections,
  );
  counter(
    lines,
    'facade_upstream_circuit_transitions_total',
    'Circuit breaker transitions, by upstream origin and new state.',
    metrics.upstreamCircuitTransitions,
  );
  counter(
    lines,
    'facade_upstream_circuit_rejections_total',
    'Upstream requests refused (503) without being sent while the circuit was open.',
    metrics.upstreamCircuitRejections,
  );
  const name = 'facade_upstream_circuit_state';
  lines.push(`# HELP ${name} Circuit breaker state per upstream origin: 1 for the current state.`, `# TYPE ${name} gauge`);
  for (const [origin, current] of metrics.upstreamCircuitStates()) {
    for (const state of CIRCUIT_STATES) lines.push(`${name}${labelText({ origin, state })} ${state === current ? 1 : 0}`);
  }
}
