/**
 * The parts of tracing on their own: W3C Trace Context parsing (https://www.w3.org/TR/trace-context/),
 * the OTLP/JSON encoding, and the exporter's batches and bounded queue, against the test receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OtlpHttpExporter, type DropReason } from '../src/tracing/otlp-exporter.ts';
import { recordingTracer, type EndedSpan } from '../src/tracing/span.ts';
import { parseTraceparent, validTracestate } from '../src/tracing/trace-context.ts';
import { startOtlpReceiver, type OtlpReceiver } from './support/otlp-receiver.ts';

describe('traceparent', () => {
  it('reads version 00 and a later version with more fields, and follows the sampled flag', () => {
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      sampled: true,
    });
    expect(parseTraceparent('cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-02-what-comes-later')).toMatchObject({ sampled: false });
  });

  it.each([
    ['version 00 with more fields', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra'],
    ['a later version with junk glued on', 'cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01extra'],
    ['an all-zero span id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['non-hex flags', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x'],
    ['empty', ''],
  ])('refuses %s', (_label, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });
});

describe('tracestate', () => {
  it('passes a valid list on unchanged', () => {
    expect(validTracestate('congo=t61rcWkgMzE, rojo=00f067aa0ba902b7,tenant@vendor=x')).toBe('congo=t61rcWkgMzE, rojo=00f067aa0ba902b7,tenant@vendor=x');
  });

  it.each([
    ['an upper-case key', 'Congo=1'],
    ['a member without a value separator', 'congo'],
    ['an equals sign in a value', 'congo=a=b'],
    ['more than 512 characters', `a=${'x'.repeat(250)},b=${'y'.repeat(250)},c=${'z'.repeat(20)}`],
    ['more than 32 members', Array.from({ length: 33 }, (_, index) => `k${index}=v`).join(',')],
  ])('drops the whole header for %s', (_label, header) => {
    expect(validTracestate(header)).toBeUndefined();
  });
});

describe('the exporter', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  /** `count` ended spans of one trace, made by the real tracer. */
  function endedSpans(count: number): EndedSpan[] {
    const ended: EndedSpan[] = [];
    const root = recordingTracer((span) => ended.push(span)).startRequest(undefined, undefined)!;
    for (let index = 1; index < count; index += 1) root.child(`child ${index}`, 'internal').end();
    root.end();
    return ended;
  }

  it('holds at most its queue, drops and counts the rest, and sends the queue in batches on flush', async () => {
    const drops: [number, DropReason][] = [];
    let exported = 0;
    const exporter = new OtlpHttpExporter({
      url: `${receiver.origin}/v1/traces`,
      headers: {},
      serviceName: 'units',
      maxQueueSize: 5,
      maxBatchSize: 2,
      scheduleDelayMs: undefined,
      timeoutMs: 2000,
      onDropped: (spans, reason) => drops.push([spans, reason]),
      onExported: (spans) => (exported += spans),
    });
    for (const span of endedSpans(8)) exporter.enqueue(span);
    expect(exporter.queued).toBe(5);
    expect(drops).toEqual([
      [1, 'queue-full'],
      [1, 'queue-full'],
      [1, 'queue-full'],
    ]);
    const before = receiver.exports.length;
    await exporter.flush();
    expect(receiver.exports.length - before).toBe(3); // 2 + 2 + 1
    expect(exported).toBe(5);
    await exporter.shutdown();
    exporter.enqueue(endedSpans(1)[0]!);
    expect(drops.at(-1)).toEqual([1, 'shut-down']);
  });

  it('encodes OTLP/JSON: hex ids, nanosecond strings, numeric kinds, typed attribute values', async () => {
    const exporter = new OtlpHttpExporter({
      url: `${receiver.origin}/v1/traces`,
      headers: {},
      serviceName: 'units',
      maxQueueSize: 10,
      maxBatchSize: 10,
      scheduleDelayMs: undefined,
      timeoutMs: 2000,
    });
    const ended: EndedSpan[] = [];
    const root = recordingTracer((span) => ended.push(span)).startRequest('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', undefined)!;
    root.set('facade.route', 'DiagnosticReport.search');
    root.set('http.response.status_code', 200);
    root.fail('upstream-timeout');
    root.end();
    exporter.enqueue(ended[0]!);
    const before = receiver.exports.length;
    await exporter.flush();
    const body = JSON.parse(receiver.exports[before]!.body) as { resourceSpans: [{ scopeSpans: [{ scope: unknown; spans: [Record<string, unknown>] }] }] };
    const [span] = body.resourceSpans[0].scopeSpans[0].spans;
    expect(span).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentSpanId: '00f067aa0ba902b7',
      kind: 2,
      status: { code: 2 },
      attributes: [
        { key: 'facade.route', value: { stringValue: 'DiagnosticReport.search' } },
        { key: 'http.response.status_code', value: { intValue: '200' } },
        { key: 'error.type', value: { stringValue: 'upstream-timeout' } },
      ],
    });
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(span.startTimeUnixNano).toMatch(/^\d{19}$/);
    expect(BigInt(span.endTimeUnixNano as string) >= BigInt(span.startTimeUnixNano as string)).toBe(true);
  });
});
