/**
 * Tracing on (docs/decisions.md, "Tracing"): over real HTTP, the service exports to a small OTLP
 * receiver, and a canned upstream shows the trace context each upstream request carried. The spans
 * of a request form one tree: the request's server span → the cache's span → one client span per
 * upstream sending (pages, the statement, retries) and the mapping's span.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { page, sendJson, startCannedUpstream, type CannedUpstream, type ReceivedRequest } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.ts';

const report = (id: string) => ({ resourceType: 'DiagnosticReport', id, status: 'final', subject: { reference: 'Patient/1' } });
const SERVER = 2;
const CLIENT = 3;
const INTERNAL = 1;

let upstream: CannedUpstream;
let receiver: OtlpReceiver;
let service: TestService;
/** Searches for these patients are throttled once (429), then answered. */
const throttledOnce = new Set(['Patient/throttled']);

beforeAll(async () => {
  upstream = await startCannedUpstream((request, res) => {
    const url = new URL(request.url, 'http://upstream');
    const patient = url.searchParams.get('patient') ?? '';
    if (patient === 'Patient/failing') return sendJson(res, 500, { resourceType: 'OperationOutcome' });
    if (throttledOnce.delete(patient)) {
      res.writeHead(429, { 'x-ms-retry-after-ms': '10' });
      return void res.end();
    }
    // Two pages: the second by a next link on the same origin, as a server writes it.
    if (url.searchParams.get('_page') === '2') return sendJson(res, 200, page([report('r2')]));
    sendJson(res, 200, page([report('r1')], `${upstream.origin}/fhir/DiagnosticReport?_page=2`));
  });
  receiver = await startOtlpReceiver();
  service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin, OTEL_BSP_SCHEDULE_DELAY: '10' });
});
afterAll(async () => {
  await service?.close();
  await upstream?.close();
  await receiver?.close();
});

/** Sends a request and returns its status and its trace as exported. */
async function traced(path: string, headers: Record<string, string> = {}): Promise<{ status: number; spans: ReceivedSpan[] }> {
  const response = await service.get(path, { headers });
  await response.arrayBuffer();
  const requestId = response.headers.get('x-request-id');
  // The server span ends last: once it is in, every span of the request is (exports go one at a time, in order).
  const all = await receiver.waitFor((spans) => spans.some((span) => span.attributes['facade.request_id'] === requestId));
  const root = all.find((span) => span.attributes['facade.request_id'] === requestId)!;
  return { status: response.status, spans: all.filter((span) => span.traceId === root.traceId) };
}

const one = (spans: ReceivedSpan[], name: string) => {
  const found = spans.filter((span) => span.name === name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};
const traceparentOf = (request: ReceivedRequest) => String(request.headers.traceparent);

describe('a request with tracing on', () => {
  it('is one tree: request → cache → upstream pages and mapping, each page sent with its own span as traceparent', async () => {
    const { status, spans } = await traced('/api/DiagnosticReport?patient=1&access_token=trace-token');
    expect(status).toBe(200);
    const request = one(spans, 'GET DiagnosticReport.search');
    expect(request).toMatchObject({ kind: SERVER, serviceName: 'clinical-records-facade' });
    expect(request.parentSpanId).toBeUndefined();
    expect(request.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.response.status_code': 200,
      'facade.route': 'DiagnosticReport.search',
      'facade.cache.outcome': 'miss',
      'facade.upstream.pages': 2,
    });
    const cache = one(spans, 'cache');
    expect(cache).toMatchObject({ kind: INTERNAL, parentSpanId: request.spanId, attributes: { 'facade.cache.outcome': 'miss' } });
    const map = one(spans, 'map');
    expect(map).toMatchObject({ kind: INTERNAL, parentSpanId: cache.spanId, attributes: { 'facade.records': 2 } });
    const pages = spans.filter((span) => span.name === 'GET DiagnosticReport');
    expect(pages.map((span) => span.attributes['facade.upstream.page'])).toEqual([1, 2]);
    for (const pageSpan of pages) {
      expect(pageSpan).toMatchObject({ kind: CLIENT, parentSpanId: cache.spanId });
      expect(pageSpan.attributes).toMatchObject({
        'http.response.status_code': 200,
        'server.address': '127.0.0.1',
        'facade.upstream.resource_type': 'DiagnosticReport',
      });
    }
    // Each upstream request named its own span: the upstream's logs point at the very sending they saw.
    const sentParents = upstream.received.filter((request) => request.url.includes('DiagnosticReport')).map(traceparentOf);
    for (const pageSpan of pages) expect(sentParents).toContain(`00-${request.traceId}-${pageSpan.spanId}-01`);
    // The first request of the service also read the CapabilityStatement, under its own span.
    const metadata = one(spans, 'GET metadata');
    expect(traceparentOf(upstream.metadataRequests[0]!)).toBe(`00-${request.traceId}-${metadata.spanId}-01`);
    // Children start after and end before their parent.
    for (const child of [cache, map, ...pages]) {
      expect(BigInt(child.startTimeUnixNano) >= BigInt(request.startTimeUnixNano)).toBe(true);
      expect(BigInt(child.endTimeUnixNano) <= BigInt(request.endTimeUnixNano)).toBe(true);
    }
  });

  it('answers from the cache with a cache span saying hit, and no upstream span', async () => {
    await traced('/api/DiagnosticReport?patient=7&access_token=trace-token');
    const { spans } = await traced('/api/DiagnosticReport?patient=7&access_token=trace-token');
    expect(one(spans, 'cache').attributes['facade.cache.outcome']).toBe('hit');
    expect(one(spans, 'GET DiagnosticReport.search').attributes['facade.cache.outcome']).toBe('hit');
    expect(spans.filter((span) => span.kind === CLIENT)).toEqual([]);
  });

  it("continues the caller's trace: same trace id, the caller's span as parent, its tracestate passed upstream unchanged", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const sentBefore = upstream.received.length;
    const { spans } = await traced('/api/DiagnosticReport?patient=2&access_token=trace-token', {
      traceparent: `00-${traceId}-${callerSpan}-01`,
      tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7',
    });
    const request = one(spans, 'GET DiagnosticReport.search');
    expect(request).toMatchObject({ traceId, parentSpanId: callerSpan });
    const sent = upstream.received.slice(sentBefore);
    expect(sent.length).toBeGreaterThan(0);
    for (const each of sent) {
      expect(traceparentOf(each)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
      expect(traceparentOf(each)).not.toContain(callerSpan);
      expect(each.headers.tracestate).toBe('congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');
    }
  });

  it.each([
    ['upper-case hex', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01'],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['a short span id', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902-01'],
    ['two headers joined', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01, 00-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b7-01'],
    ['garbage', 'not a traceparent'],
  ])('ignores a malformed traceparent (%s) and starts a new trace', async (_label, traceparent) => {
    const { spans } = await traced('/api/DiagnosticReport?patient=3&access_token=trace-token', { traceparent, tracestate: 'congo=t61rcWkgMzE' });
    const request = one(spans, 'GET DiagnosticReport.search');
    expect(request.parentSpanId).toBeUndefined();
    expect(request.traceId).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(request.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('records nothing of a trace the caller does not sample, yet sends the upstream a well-formed unsampled context', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const sentBefore = upstream.received.length;
    const response = await service.get('/api/DiagnosticReport?patient=4&access_token=trace-token', {
      headers: { traceparent: `00-${traceId}-b7ad6b7169203331-00` },
    });
    expect(response.status).toBe(200);
    // A later traced request flushes past it: nothing of the unsampled trace may be among the spans.
    await traced('/healthz');
    expect(receiver.spans.filter((span) => span.traceId === traceId)).toEqual([]);
    for (const each of upstream.received.slice(sentBefore)) {
      expect(traceparentOf(each)).toMatch(new RegExp(`^00-${traceId}-(?!b7ad6b7169203331)[0-9a-f]{16}-00$`));
    }
  });

  it('records a retry as its own client span, with its resend count and its own traceparent', async () => {
    const sentBefore = upstream.received.length;
    const { status, spans } = await traced('/api/DiagnosticReport?patient=throttled&access_token=trace-token');
    expect(status).toBe(200);
    const firstPages = spans.filter((span) => span.name === 'GET DiagnosticReport' && span.attributes['facade.upstream.page'] === 1);
    expect(firstPages.map((span) => [span.attributes['http.response.status_code'], span.attributes['http.request.resend_count'], span.status.code])).toEqual([
      [429, undefined, 2],
      [200, 1, undefined],
    ]);
    const sent = upstream.received.slice(sentBefore).map(traceparentOf);
    expect(sent.slice(0, 2)).toEqual(firstPages.map((span) => `00-${span.traceId}-${span.spanId}-01`));
  });

  it('marks a request failed by the upstream: the server span with its error code, the client span with the status', async () => {
    const { status, spans } = await traced('/api/DiagnosticReport?patient=failing&access_token=trace-token');
    expect(status).toBe(502);
    const request = one(spans, 'GET DiagnosticReport.search');
    expect(request.status.code).toBe(2);
    expect(request.attributes['error.type']).toBe('upstream-error');
    const failed = one(spans, 'GET DiagnosticReport');
    expect(failed.attributes).toMatchObject({ 'http.response.status_code': 500, 'error.type': '500' });
    expect(one(spans, 'cache').attributes['error.type']).toBe('upstream-error');
  });

  it('leaves a 4xx span unfailed (the caller erred, not the service), naming the error', async () => {
    const { status, spans } = await traced('/api/DiagnosticReport?patient=1&start_date=2024-13-45&access_token=trace-token');
    expect(status).toBe(400);
    const request = one(spans, 'GET DiagnosticReport.search');
    expect(request.status.code).toBeUndefined();
    expect(request.attributes['error.type']).toBe('bad-parameter');
  });
});
