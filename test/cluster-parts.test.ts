/**
 * The parts of WORKERS mode that need no processes: the merge of the workers' metrics, the restart
 * backoff, each worker's share of the upstream limits, and the start gate a worker waits on while
 * the primary loads the embedded data.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.ts';
import { mergeWorkerMetrics } from '../src/entry/node/cluster-metrics.ts';
import { workerShare } from '../src/entry/node/cluster-worker.ts';
import { RestartBackoff } from '../src/entry/node/restart-backoff.ts';
import { startService, type RunningService } from '../src/entry/node/node-service.ts';
import { sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';

describe('mergeWorkerMetrics', () => {
  const text = (requests: number) =>
    [
      '# HELP facade_requests_total Legacy requests by route and status.',
      '# TYPE facade_requests_total counter',
      `facade_requests_total{route="healthz",status="200"} ${requests}`,
      '# HELP facade_cache_entries Responses held by the cache.',
      '# TYPE facade_cache_entries gauge',
      'facade_cache_entries 3',
      '',
    ].join('\n');

  it('names each family once, every worker’s samples under it, labelled with the worker', () => {
    expect(
      mergeWorkerMetrics([
        { worker: 1, text: text(5) },
        { worker: 2, text: text(7) },
      ]),
    ).toBe(
      [
        '# HELP facade_requests_total Legacy requests by route and status.',
        '# TYPE facade_requests_total counter',
        'facade_requests_total{worker="1",route="healthz",status="200"} 5',
        'facade_requests_total{worker="2",route="healthz",status="200"} 7',
        '# HELP facade_cache_entries Responses held by the cache.',
        '# TYPE facade_cache_entries gauge',
        'facade_cache_entries{worker="1"} 3',
        'facade_cache_entries{worker="2"} 3',
        '',
      ].join('\n'),
    );
  });

  it('is empty for no worker, and leaves out a worker that had nothing to say', () => {
    expect(mergeWorkerMetrics([])).toBe('');
    expect(
      mergeWorkerMetrics([
        { worker: 1, text: '' },
        { worker: 2, text: text(1) },
      ]),
    ).toContain('facade_requests_total{worker="2",route="healthz",status="200"} 1');
  });
});

describe('RestartBackoff', () => {
  it('doubles after each death soon after a start, up to 10 s, and starts again after a run that lasted', () => {
    const backoff = new RestartBackoff();
    expect(Array.from({ length: 9 }, () => backoff.next(50))).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000]);
    expect(backoff.next(60_000)).toBe(100);
    expect(backoff.next(50)).toBe(200);
  });
});

describe('workerShare', () => {
  it('gives each worker its share of the upstream limits, rounded up, and keeps the rest', () => {
    const config = parseConfig({ UPSTREAM_MAX_IN_FLIGHT: '64', UPSTREAM_MAX_IN_FLIGHT_PER_TYPE: '5', CACHE_MAX_BYTES: '1000000' });
    expect(workerShare(config, 2)).toMatchObject({ UPSTREAM_MAX_IN_FLIGHT: 32, UPSTREAM_MAX_IN_FLIGHT_PER_TYPE: 3, CACHE_MAX_BYTES: 1_000_000 });
    expect(workerShare(config, 100)).toMatchObject({ UPSTREAM_MAX_IN_FLIGHT: 1, UPSTREAM_MAX_IN_FLIGHT_PER_TYPE: 1 });
  });

  it('WORKERS is 1 by default, a number or auto', () => {
    expect(parseConfig({}).WORKERS).toBe(1);
    expect(parseConfig({ WORKERS: '4' }).WORKERS).toBe(4);
    expect(parseConfig({ WORKERS: 'auto' }).WORKERS).toBe('auto');
    expect(() => parseConfig({ WORKERS: 'all' })).toThrow('WORKERS: must be auto or a whole number from 1 to 1024');
  });
});

describe('a worker waiting for the embedded data (startedWhen)', () => {
  let upstream: CannedUpstream | undefined;
  let service: RunningService | undefined;
  afterEach(async () => {
    await service?.close();
    await upstream?.close();
  });

  it('answers 503 on /readyz and the legacy operations until the primary says the data has loaded', async () => {
    upstream = await startCannedUpstream((_request, response) => sendJson(response, 200, { resourceType: 'Bundle', type: 'searchset', entry: [] }));
    let loaded!: () => void;
    const startedWhen = new Promise<void>((resolve) => (loaded = resolve));
    service = await startService(parseConfig({ UPSTREAM_URL: `${upstream.origin}/fhir`, PORT: '0', HOST: '127.0.0.1' }), { startedWhen });
    const legacy = `${service.url}/api/DiagnosticReport?patient=1&access_token=t`;
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${service.url}/readyz`)).status).toBe(503);
    const waiting = await fetch(legacy);
    expect([waiting.status, waiting.headers.get('retry-after')]).toEqual([503, '5']);
    loaded();
    await startedWhen;
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    expect((await fetch(legacy)).status).toBe(200);
  });
});
