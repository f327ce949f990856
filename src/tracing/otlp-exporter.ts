/**
 * Sends ended spans to an OpenTelemetry collector over OTLP/HTTP (JSON), in batches, from a bounded
 * queue: a span that finds the queue full is dropped and counted, never held. A request never waits
 * for an export and never fails because of one; an export that fails is dropped and counted (no
 * retries: a collector that is down would otherwise have its backlog grow into memory here).
 * Runtime-neutral: on Node a timer sends partial batches; on Workers, where timers die with the
 * request, the entry calls `flush()` under `waitUntil` after each request.
 */
import { networkFailureKind } from '../upstream/failure-kind.ts';
import { exportTraceServiceRequest } from './otlp-json.ts';
import type { EndedSpan, SpanSink } from './span.ts';

export type DropReason = 'queue-full' | 'export-failed' | 'shut-down';

export interface OtlpExporterOptions {
  /** The traces URL, e.g. `http://collector:4318/v1/traces`. */
  url: string;
  /** Extra request headers (OTEL_EXPORTER_OTLP_HEADERS: a collector's API key). */
  headers: Readonly<Record<string, string>>;
  serviceName: string;
  /** Most spans waiting to be sent; more are dropped. */
  maxQueueSize: number;
  /** Most spans in one export. */
  maxBatchSize: number;
  /** How long a span may wait for its batch to fill; `undefined`: only `flush()` sends (Workers). */
  scheduleDelayMs: number | undefined;
  /** Longest an export may take before it is abandoned (and its spans dropped). */
  timeoutMs: number;
  fetch?: typeof fetch;
  onExported?: (spans: number) => void;
  onDropped?: (spans: number, reason: DropReason) => void;
  /** Told the kind of each failed export (`connection-refused`, `timeout`, `http-503`), never its URL. */
  onExportFailed?: (kind: string) => void;
}

export class OtlpHttpExporter {
  readonly #options: OtlpExporterOptions;
  // Called bare, never as a method: workerd refuses a `fetch` called with another `this`.
  readonly #fetch: typeof fetch;
  #queue: EndedSpan[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(options: OtlpExporterOptions) {
    this.#options = options;
    const fetchImpl = options.fetch;
    this.#fetch = fetchImpl ?? ((input, init) => fetch(input, init));
  }

  /** Takes an ended span: queued, or dropped and counted when the queue is full. Never blocks, never throws. */
  readonly enqueue: SpanSink = (span) => {
    if (this.#closed) return this.#options.onDropped?.(1, 'shut-down');
    if (this.#queue.length >= this.#options.maxQueueSize) return this.#options.onDropped?.(1, 'queue-full');
    this.#queue.push(span);
    this.#schedule();
  };

  /** Spans waiting to be sent (tests, diagnostics). */
  get queued(): number {
    return this.#queue.length;
  }

  /** Sends every span queued now, in batches, and resolves when those exports have ended. Never rejects. */
  async flush(): Promise<void> {
    this.#clearTimer();
    const sends: Promise<void>[] = [];
    while (this.#queue.length > 0) sends.push(this.#send(this.#queue.splice(0, this.#options.maxBatchSize)));
    await Promise.all(sends);
  }

  /** Sends what is queued and waits for every export under way; spans ended after this are dropped. */
  async shutdown(): Promise<void> {
    this.#closed = true;
    await this.flush();
    await Promise.all([...this.#inFlight]);
  }

  /** Node: a full batch goes now, a partial one after the delay. Workers (no delay): flush() sends. */
  #schedule(): void {
    const delay = this.#options.scheduleDelayMs;
    if (delay === undefined || this.#closed || this.#queue.length === 0) return;
    if (this.#queue.length >= this.#options.maxBatchSize) this.#sendBatchInBackground();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#sendBatchInBackground();
      }, delay);
      // The timer must not keep a Node process alive; shutdown() sends what it would have.
      unrefTimer(this.#timer);
    }
  }

  /**
   * One background export at a time: while the collector is slow, spans wait in the bounded queue
   * (and past its bound are dropped) instead of piling up in exports under way.
   */
  #sendBatchInBackground(): void {
    this.#clearTimer();
    if (this.#inFlight.size > 0 || this.#queue.length === 0) return;
    void this.#send(this.#queue.splice(0, this.#options.maxBatchSize));
  }

  #send(batch: EndedSpan[]): Promise<void> {
    const sending = this.#post(batch).finally(() => {
      this.#inFlight.delete(sending);
      this.#schedule(); // what queued meanwhile
    });
    this.#inFlight.add(sending);
    return sending;
  }

  async #post(batch: EndedSpan[]): Promise<void> {
    const { url, headers, serviceName, timeoutMs } = this.#options;
    let failure: string | undefined;
    try {
      const response = await this.#fetch(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: exportTraceServiceRequest(serviceName, batch),
        signal: AbortSignal.timeout(timeoutMs),
      });
      // The answer (at most a partial-success count) is not read: only the status says anything here.
      await response.body?.cancel();
      if (!response.ok) failure = `http-${response.status}`;
    } catch (error) {
      failure = networkFailureKind(error);
    }
    if (failure === undefined) {
      this.#options.onExported?.(batch.length);
      return;
    }
    this.#options.onDropped?.(batch.length, 'export-failed');
    this.#options.onExportFailed?.(failure);
  }

  #clearTimer(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** Node's timers are objects with `unref()`; elsewhere (Workers, the core's typings) a timer is a number and there is nothing to do. */
function unrefTimer(timer: unknown): void {
  if (typeof timer === 'object' && timer !== null && 'unref' in timer && typeof timer.unref === 'function') timer.unref();
}
