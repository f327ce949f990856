/**
 * A small OTLP/HTTP receiver for tests: a real HTTP server taking `POST /v1/traces` (JSON), keeping
 * every body as received and the spans it holds, answering with the status a test sets. A GET
 * answers the spans received so far, as JSON.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as exported, its attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, string | number | boolean>;
  status: { code?: number };
  /** The resource's `service.name`. */
  serviceName: string;
}

export interface OtlpReceiver {
  /** Origin, e.g. http://127.0.0.1:40123 (the OTEL_EXPORTER_OTLP_ENDPOINT of a test). */
  origin: string;
  /** Every export as received: path, headers and raw body. */
  exports: { path: string; headers: IncomingHttpHeaders; body: string }[];
  spans: ReceivedSpan[];
  /** The status answered from now on (200 by default). */
  answerWith(status: number): void;
  /** Resolves with the spans once `done` holds of them; fails after `timeoutMs`. */
  waitFor(done: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type KeyValue = { key: string; value: { stringValue?: string; intValue?: string; doubleValue?: number; boolValue?: boolean } };
type ExportBody = {
  resourceSpans: {
    resource: { attributes: KeyValue[] };
    scopeSpans: { spans: (Omit<ReceivedSpan, 'attributes' | 'serviceName'> & { attributes: KeyValue[] })[] }[];
  }[];
};

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: OtlpReceiver['exports'] = [];
  const spans: ReceivedSpan[] = [];
  let status = 200;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      // A GET reads what was received: how a test inside workerd sees the spans of a receiver on Node.
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify(spans));
      }
      const body = Buffer.concat(chunks).toString('utf8');
      exports.push({ path: req.url ?? '', headers: req.headers, body });
      if (status === 200) spans.push(...spansOf(JSON.parse(body) as ExportBody));
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    exports,
    spans,
    answerWith: (next) => {
      status = next;
    },
    async waitFor(done, timeoutMs = 5000) {
      const until = Date.now() + timeoutMs;
      while (!done(spans)) {
        if (Date.now() > until) throw new Error(`spans not received in ${timeoutMs} ms; have: ${spans.map((span) => span.name).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return spans;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function spansOf(body: ExportBody): ReceivedSpan[] {
  return body.resourceSpans.flatMap(({ resource, scopeSpans }) => {
    const serviceName = String(plain(resource.attributes)['service.name']);
    return scopeSpans.flatMap(({ spans }) => spans.map((span) => ({ ...span, attributes: plain(span.attributes), serviceName })));
  });
}

function plain(attributes: KeyValue[]): Record<string, string | number | boolean> {
  return Object.fromEntries(
    attributes.map(({ key, value }) => [key, value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue)] as const),
  );
}
