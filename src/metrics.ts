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
  readonly upstreamSeconds = new Histogram(UPSTREAM_SECONDS_BUCKETS);
  readonly upstreamPages = new Histogram(PAGES_BUCKETS);
  /** Includes the upstream did not carry out, fetched by other searches (src/pipeline/plans/). */
  readonly upstreamFallbacks = new Counter();

  /** The Prometheus text exposition; `gauges` are read at scrape time (cache size). */
  render(gauges: Record<string, { help: string; value: number }> = {}): string {
    const lines: string[] = [];
    counter(lines, 'facade_requests_total', 'Legacy requests by route and status.', this.requests);
    counter(lines, 'facade_cache_events_total', 'Response cache hits, misses, stale answers and evictions.', this.cacheEvents);
    histogram(lines, 'facade_upstream_request_duration_seconds', 'Duration of each upstream FHIR request.', this.upstreamSeconds);
    histogram(lines, 'facade_upstream_pages', 'Upstream pages read per legacy request that reached the upstream.', this.upstreamPages);
    counter(lines, 'facade_upstream_fallbacks_total', 'Includes and revincludes the upstream did not carry out, fetched by other searches.', this.upstreamFallbacks);
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
  metric.buckets.forEach((bound, index) => lines.push(`${name}_bucket{le="${bound}"} ${metric.counts[index]}`));
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
