/**
 * Tracing inside workerd: the same spans as on Node, sent after the answer under `waitUntil`
 * (timers die with the request there), to a receiver on Node (test/worker/global-setup.ts).
 */
import { beforeAll, expect, inject, it, vi } from 'vitest';
import { createWorker } from '../../src/entry/worker.ts';
import type { ReceivedSpan } from '../support/otlp-receiver.ts';

// The Worker logs each request to the console; here those lines would only be noise.
beforeAll(() => void vi.spyOn(console, 'log').mockImplementation(() => {}));

const env = { UPSTREAM_URL: inject('upstreamUrl'), OTEL_EXPORTER_OTLP_ENDPOINT: inject('otlpReceiverUrl'), OTEL_SERVICE_NAME: 'facade-on-workers' };

it("exports the request's spans under waitUntil, continuing the caller's trace", async () => {
  const worker = createWorker();
  const kept: Promise<unknown>[] = [];
  const ctx = { waitUntil: (work: Promise<unknown>) => void kept.push(work), passThroughOnException: () => {} };
  const traceId = '5bf92f3577b34da6a3ce929d0e0e4736';
  const request = new Request('http://facade.test/api/DiagnosticReport?patient=1', { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
  const response = await worker.fetch(request, env, ctx);
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  expect(kept.length).toBe(1);
  await Promise.all(kept);
  const spans = ((await (await fetch(inject('otlpReceiverUrl'))).json()) as ReceivedSpan[]).filter((span) => span.traceId === traceId);
  const server = spans.find((span) => span.name === 'GET DiagnosticReport.search');
  expect(server).toMatchObject({ parentSpanId: '00f067aa0ba902b7', serviceName: 'facade-on-workers' });
  const cache = spans.find((span) => span.name === 'cache');
  expect(cache?.parentSpanId).toBe(server?.spanId);
  expect(spans.filter((span) => span.name === 'GET DiagnosticReport').every((span) => span.parentSpanId === cache?.spanId)).toBe(true);
  expect(spans.some((span) => span.name === 'map' && span.parentSpanId === cache?.spanId)).toBe(true);
});

it('asks the runtime to keep nothing alive when tracing is off', async () => {
  const kept: Promise<unknown>[] = [];
  const ctx = { waitUntil: (work: Promise<unknown>) => void kept.push(work), passThroughOnException: () => {} };
  const response = await createWorker().fetch(new Request('http://facade.test/healthz'), { UPSTREAM_URL: inject('upstreamUrl') }, ctx);
  expect(response.status).toBe(200);
  expect(kept).toEqual([]);
});
