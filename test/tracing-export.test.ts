/**
 * Tracing's promises at its edges (docs/decisions.md, "Tracing"): no token, query or patient data
 * in anything exported; a collector that is down or hangs costs requests nothing and prints
 * nothing; a full queue drops and counts; shutdown sends what is left; OpenTelemetry's variables
 * mean what they mean elsewhere; with no endpoint nothing is recorded and a caller's context passes
 * upstream untouched.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, parseConfig } from '../src/config.ts';
import { tracesUrl } from '../src/tracing/tracing-config.ts';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';
import { startOtlpReceiver, type OtlpReceiver } from './support/otlp-receiver.ts';

/** A 64-character token and ids found nowhere else: any of them in an export is a leak. */
const TOKEN = 'tK7qZ2mX9vR4wL8nB3cF6hJ1pS5dG0aY-Ue_Io.Ax~Bb7Cc2Dd9Ee4Ff1Gg6Hh3J';
const PATIENT = 'pt5b9e41c7d2';
const RECORD = 'rec8c1f0a9e3';

let upstream: CannedUpstream;
const started: { close(): Promise<unknown> }[] = [];

beforeAll(async () => {
  // Any search answers one record of the searched type for PATIENT, and a second page by a next link
  // that carries the patient; a read answers the record asked for; `missing…` ids are 404; PATIENT-fail gets a 500.
  upstream = await startCannedUpstream((request, res) => {
    const url = new URL(request.url, 'http://upstream');
    const [, , type = '', id] = url.pathname.split('/');
    const record = {
      resourceType: type,
      id: id ?? RECORD,
      status: 'final',
      subject: { reference: `Patient/${PATIENT}` },
      patient: { reference: `Patient/${PATIENT}` },
    };
    if (id?.startsWith('missing')) return sendJson(res, 404, { resourceType: 'OperationOutcome' });
    if (id !== undefined) return sendJson(res, 200, record);
    if (url.searchParams.get('patient')?.endsWith('-fail')) return sendJson(res, 500, { resourceType: 'OperationOutcome' });
    if (url.searchParams.get('_page') === '2') return sendJson(res, 200, page([]));
    sendJson(res, 200, page([record], `${upstream.origin}/fhir/${type}?_page=2&patient=Patient/${PATIENT}`));
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  for (const each of started.splice(0)) await each.close();
});
afterAll(async () => {
  await upstream?.close();
});

async function service(env: Record<string, string>): Promise<TestService> {
  const running = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, ...env });
  started.push(running);
  return running;
}
/** Closes a service within its test (its spans are sent on close), not again after it. */
async function closeNow(facade: TestService): Promise<void> {
  started.splice(started.indexOf(facade), 1);
  await facade.close();
}
async function receiver(): Promise<OtlpReceiver> {
  const running = await startOtlpReceiver();
  started.push(running);
  return running;
}
async function statusOf(response: Response): Promise<number> {
  await response.arrayBuffer();
  return response.status;
}
async function metric(facade: TestService, line: string): Promise<number> {
  const text = await (await facade.get('/metrics')).text();
  return Number(
    text
      .split('\n')
      .find((each) => each.startsWith(`${line} `))
      ?.split(' ')[1] ?? 0,
  );
}

describe('what is exported', () => {
  it('holds no token, no query, no patient id and no record id, whatever the request carried', async () => {
    const collector = await receiver();
    const facade = await service({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.origin, OTEL_BSP_SCHEDULE_DELAY: '10' });
    const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `patient=${PATIENT}&access_token=${TOKEN}` };
    const statuses = [
      await statusOf(await facade.get(`/api/DiagnosticReport?patient=${PATIENT}&access_token=${TOKEN}`)),
      await statusOf(await facade.get(`/api/DiagnosticReport?patient=${PATIENT}`, { headers: { authorization: `Bearer ${TOKEN}` } })),
      await statusOf(await facade.get(`/api/DiagnosticReport/${RECORD}?patient=${PATIENT}&access_token=${TOKEN}`)),
      await statusOf(await facade.get('/api/DiagnosticReport/_search', form)),
      await statusOf(await facade.get(`/Encounter?patient=${PATIENT}&access_token=${TOKEN}`)),
      await statusOf(await facade.get(`/Observation?patient=${PATIENT}&category=social-history&_revinclude=Provenance:target&access_token=${TOKEN}`)),
      await statusOf(await facade.get(`/api/DiagnosticReport?patient=${PATIENT}&start_date=2024-13-45&access_token=${TOKEN}`)),
      await statusOf(await facade.get(`/api/DiagnosticReport/missing${RECORD}?access_token=${TOKEN}`)),
      await statusOf(await facade.get(`/api/DiagnosticReport?patient=${PATIENT}-fail&access_token=${TOKEN}`)),
      await statusOf(
        await facade.get(`/nothing/${PATIENT}?access_token=${TOKEN}`, {
          headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: `vendor=${PATIENT}` },
        }),
      ),
    ];
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 400, 404, 502, 404]);
    await closeNow(facade); // sends what is left
    const exported = collector.exports.map((each) => each.body).join('\n');
    expect(collector.spans.filter((span) => span.kind === 3).length).toBeGreaterThan(8); // the upstream requests were traced
    for (const secret of [TOKEN, TOKEN.slice(0, 16), encodeURIComponent(TOKEN), PATIENT, RECORD, 'Patient/', 'access_token', '?', '_page']) {
      expect(exported, secret).not.toContain(secret);
    }
  });
});

describe('a collector that fails', () => {
  it('is down: every request still answers 200, nothing is printed, the lost spans are counted and logged once', async () => {
    const gone = await startOtlpReceiver();
    await gone.close();
    const printed = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) => vi.spyOn(console, method));
    const facade = await service({ OTEL_EXPORTER_OTLP_ENDPOINT: gone.origin, OTEL_BSP_SCHEDULE_DELAY: '10' });
    for (let round = 0; round < 5; round += 1) {
      expect(await statusOf(await facade.get(`/api/DiagnosticReport?patient=${PATIENT}${round}&access_token=${TOKEN}`))).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await vi.waitFor(async () => expect(await metric(facade, 'facade_trace_spans_dropped_total{reason="export-failed"}')).toBeGreaterThanOrEqual(15));
    expect(await metric(facade, 'facade_trace_spans_exported_total')).toBe(0);
    const warnings = facade.logLines
      .map((line) => JSON.parse(line) as { message: string; reason?: string })
      .filter((line) => line.message === 'trace export failing');
    expect(warnings).toEqual([expect.objectContaining({ reason: 'connection-refused' })]);
    for (const spy of printed) expect(spy).not.toHaveBeenCalled();
  });

  it('hangs: requests do not wait for it; the queue stays within its bound and drops are counted', async () => {
    const hanging: Server = createServer(() => {}); // takes the request, never answers
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    started.push({
      close: () =>
        new Promise<void>((resolve) => {
          hanging.closeAllConnections();
          hanging.close(() => resolve());
        }),
    });
    const origin = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
    const facade = await service({
      OTEL_EXPORTER_OTLP_ENDPOINT: origin,
      OTEL_EXPORTER_OTLP_TIMEOUT: '1500',
      OTEL_BSP_SCHEDULE_DELAY: '1',
      OTEL_BSP_MAX_QUEUE_SIZE: '4',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2',
    });
    for (let round = 0; round < 6; round += 1) {
      const began = performance.now();
      expect(await statusOf(await facade.get(`/api/DiagnosticReport?patient=${PATIENT}${round}&access_token=${TOKEN}`))).toBe(200);
      expect(performance.now() - began).toBeLessThan(1000);
    }
    // One export at a time hangs; past four waiting spans, the rest are dropped rather than held.
    expect(await metric(facade, 'facade_trace_spans_dropped_total{reason="queue-full"}')).toBeGreaterThan(10);
    await vi.waitFor(async () => expect(await metric(facade, 'facade_trace_spans_dropped_total{reason="export-failed"}')).toBeGreaterThanOrEqual(2), {
      timeout: 5000,
    });
    expect(facade.logLines.some((line) => line.includes('"trace export failing"') && line.includes('"reason":"timeout"'))).toBe(true);
  });
});

describe('the variables', () => {
  it('send to the traces endpoint as it is, with the configured headers and service name', async () => {
    const collector = await receiver();
    const facade = await service({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.origin}/custom/traces`,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', // overridden by the traces endpoint
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=collector%20secret, X-Tenant=site-a',
      OTEL_SERVICE_NAME: 'facade-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '10',
    });
    expect(await statusOf(await facade.get('/healthz'))).toBe(200);
    await collector.waitFor((spans) => spans.length > 0);
    expect(collector.exports[0]).toMatchObject({
      path: '/custom/traces',
      headers: { 'x-api-key': 'collector secret', 'x-tenant': 'site-a', 'content-type': 'application/json' },
    });
    expect(collector.spans[0]).toMatchObject({ name: 'GET healthz', serviceName: 'facade-under-test' });
  });

  it('put spans under v1/traces of the endpoint, with or without its trailing slash', () => {
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined })).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/otlp/', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined })).toBe(
      'http://collector:4318/otlp/v1/traces',
    );
  });

  it('that are malformed stop the start, each named', () => {
    const problems = (() => {
      try {
        parseConfig({
          OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
          OTEL_EXPORTER_OTLP_HEADERS: 'api-key',
          OTEL_SDK_DISABLED: 'yes',
          OTEL_BSP_MAX_QUEUE_SIZE: '0',
        });
        return [];
      } catch (error) {
        return error instanceof ConfigError ? error.problems.map((problem) => problem.split(':')[0]) : [String(error)];
      }
    })();
    expect(problems.sort()).toEqual(['OTEL_BSP_MAX_QUEUE_SIZE', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_SDK_DISABLED']);
  });

  it('shutdown sends the spans still waiting for their batch', async () => {
    const collector = await receiver();
    const facade = await service({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.origin, OTEL_BSP_SCHEDULE_DELAY: '600000' });
    expect(await statusOf(await facade.get(`/api/DiagnosticReport?patient=${PATIENT}&access_token=${TOKEN}`))).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(collector.spans).toEqual([]);
    await closeNow(facade);
    expect(collector.spans.map((span) => span.name)).toContain('GET DiagnosticReport.search');
  });
});

describe('with no endpoint (or OTEL_SDK_DISABLED=true)', () => {
  it.each([
    ['no endpoint', {}],
    ['disabled', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' }],
  ])("(%s) records nothing, adds no traceparent of its own, and forwards a caller's context untouched", async (_label, env: Record<string, string>) => {
    const facade = await service(env);
    const before = upstream.received.length;
    expect(await statusOf(await facade.get(`/api/DiagnosticReport?patient=${PATIENT}a&access_token=${TOKEN}`))).toBe(200);
    const callerContext = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'congo=t61rcWkgMzE' };
    expect(await statusOf(await facade.get(`/api/DiagnosticReport?patient=${PATIENT}b&access_token=${TOKEN}`, { headers: callerContext }))).toBe(200);
    expect(
      await statusOf(
        await facade.get(`/api/DiagnosticReport?patient=${PATIENT}c&access_token=${TOKEN}`, {
          headers: { traceparent: 'garbage', tracestate: 'congo=t61rcWkgMzE' },
        }),
      ),
    ).toBe(200);
    const sent = upstream.received.slice(before);
    const byPatient = (suffix: string) => sent.filter((request) => request.url.includes(`${PATIENT}${suffix}`));
    for (const request of [...byPatient('a'), ...byPatient('c')]) expect(request.headers).not.toHaveProperty('traceparent');
    for (const request of byPatient('c')) expect(request.headers).not.toHaveProperty('tracestate');
    expect(byPatient('b').length).toBeGreaterThan(0);
    for (const request of byPatient('b')) expect(request.headers).toMatchObject(callerContext);
    const text = await (await facade.get('/metrics')).text();
    expect(text).not.toMatch(/^facade_trace_spans_\w+\{?.* \d/m);
  });
});
