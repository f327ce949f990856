/**
 * The circuit breaker: while the upstream is down, requests fail fast with a 503 and nothing is
 * sent (a server listening again on the upstream's port sees no connection), until the cool-down
 * ends; then one probe goes through and its answer closes the circuit. The state is in /metrics.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CircuitBreakers } from '../src/upstream/circuit-breaker.ts';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const REPORT = { resourceType: 'DiagnosticReport', id: 'r1', status: 'final', subject: { reference: 'Patient/1' } };
const PATH = '/api/DiagnosticReport?patient=1';
const BREAKER = { UPSTREAM_BREAKER_FAILURES: '3', UPSTREAM_BREAKER_COOLDOWN_MS: '1000', CACHE_ENABLED: 'false', UPSTREAM_TIMEOUT_MS: '5000' };

async function metrics(service: TestService): Promise<string> {
  return (await service.get('/metrics')).text();
}

/** The state whose gauge is 1 for `origin`. */
function circuitState(text: string, origin: string): string | undefined {
  return [...text.matchAll(/^facade_upstream_circuit_state\{origin="([^"]+)",state="([^"]+)"\} 1$/gm)].find((match) => match[1] === origin)?.[2];
}

describe('an upstream that refuses connections', () => {
  let service: TestService;
  let revived: Server | undefined;
  let port: number;
  let connections = 0;
  let requests = 0;

  beforeAll(async () => {
    // A loopback port with nothing listening on it: taken, then released.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    service = await startTestService({ UPSTREAM_URL: `http://127.0.0.1:${port}/fhir`, ...BREAKER });
  });
  afterAll(async () => {
    await service?.close();
    revived?.closeAllConnections();
    await new Promise((resolve) => (revived ? revived.close(resolve) : resolve(undefined)));
  });

  it('fails fast without a connection once the threshold is passed, then a probe brings it back', async () => {
    const origin = `http://127.0.0.1:${port}`;
    // Each refused connection counts (the first request also asks for the CapabilityStatement): at
    // most three answers fail slowly with 502 before the circuit is open.
    let slowFailures = 0;
    while (circuitState(await metrics(service), origin) !== 'open' && slowFailures < 3) {
      expect((await service.get(PATH)).status).toBe(502);
      slowFailures += 1;
    }
    expect(slowFailures).toBeGreaterThan(0);
    expect(circuitState(await metrics(service), origin)).toBe('open');

    // The upstream comes back on the same port, counting every connection made to it.
    revived = createServer((_, res) => {
      requests += 1;
      sendJson(res, 200, page([REPORT]));
    });
    revived.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => revived!.listen(port, '127.0.0.1', resolve));

    const started = performance.now();
    const refused = await service.get(PATH);
    expect(performance.now() - started).toBeLessThan(500);
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'transient', details: { text: 'upstream-unavailable' } }] });
    expect(connections).toBe(0);

    // Until the cool-down ends every request is refused the same way; then one probe reaches the upstream.
    await expect.poll(async () => (await service.get(PATH)).status, { timeout: 4000, interval: 150 }).toBe(200);
    expect(requests).toBe(1);
    expect(connections).toBe(1);
    expect((await service.get(PATH)).status).toBe(200);
    expect(requests).toBe(2);

    const text = await metrics(service);
    expect(circuitState(text, origin)).toBe('closed');
    for (const to of ['open', 'half-open', 'closed']) expect(text).toContain(`facade_upstream_circuit_transitions_total{origin="${origin}",to="${to}"} 1`);
    expect(Number(/facade_upstream_circuit_rejections_total\{origin="[^"]+"\} (\d+)/.exec(text)?.[1])).toBeGreaterThanOrEqual(1);
  });
});

describe('an upstream answering 5xx', () => {
  let upstream: CannedUpstream;
  let service: TestService;
  beforeAll(async () => {
    upstream = await startCannedUpstream((_, res) => sendJson(res, 500, { resourceType: 'OperationOutcome' }));
    service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, ...BREAKER });
  });
  afterAll(async () => {
    await service?.close();
    await upstream?.close();
  });
  afterEach(() => {
    upstream.received.length = 0;
  });

  it('opens the circuit; a failed probe opens it again; only one probe at a time', async () => {
    for (let failure = 0; failure < 3; failure += 1) expect((await service.get(PATH)).status).toBe(502);
    expect((await service.get(PATH)).status).toBe(503);
    expect(upstream.received).toHaveLength(3);

    // The probe after the cool-down fails: open again, nothing more is sent.
    await expect.poll(async () => (await service.get(PATH)).status, { timeout: 4000, interval: 150 }).toBe(502);
    expect(upstream.received).toHaveLength(4);
    expect((await service.get(PATH)).status).toBe(503);
    expect(upstream.received).toHaveLength(4);

    // The next probe is slow and succeeds; a request arriving meanwhile is refused, not sent.
    let release: () => void = () => {};
    upstream.setHandler((_, res) => {
      release = () => sendJson(res, 200, page([REPORT]));
    });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const probe = service.get(PATH);
    await expect.poll(() => upstream.received.length).toBe(5);
    expect((await service.get(PATH)).status).toBe(503);
    expect(upstream.received).toHaveLength(5);
    release();
    expect((await probe).status).toBe(200);
    upstream.setHandler((_, res) => sendJson(res, 200, page([REPORT])));
    expect((await service.get(PATH)).status).toBe(200);
  });
});

describe("the breaker's count", () => {
  const deadline = () => Date.now() + 10_000;

  it('resets on any answer: failures must come in a row', () => {
    const breakers = new CircuitBreakers({ failureThreshold: 3, coolDownMs: 60_000 });
    for (const outcome of ['failed', 'failed', 'answered', 'failed', 'failed'] as const) breakers.admit('http://u', deadline())[outcome]();
    expect(breakers.states().get('http://u')).toBe('closed');
    breakers.admit('http://u', deadline()).failed();
    expect(breakers.states().get('http://u')).toBe('open');
    expect(() => breakers.admit('http://u', deadline())).toThrow(expect.objectContaining({ code: 'upstream-unavailable' }));
  });

  it('counts a timeout only when the origin answered nothing else meanwhile (a hanging type is not a down server)', () => {
    const breakers = new CircuitBreakers({ failureThreshold: 2, coolDownMs: 60_000 });
    const slow = [breakers.admit('http://u', deadline()), breakers.admit('http://u', deadline())];
    breakers.admit('http://u', deadline()).answered();
    for (const attempt of slow) attempt.timedOut();
    expect(breakers.states().get('http://u')).toBe('closed');
    breakers.admit('http://u', deadline()).timedOut();
    breakers.admit('http://u', deadline()).timedOut();
    expect(breakers.states().get('http://u')).toBe('open');
  });

  it('lets another request probe when the probe vanished without an outcome (a cancelled Worker request)', () => {
    const breakers = new CircuitBreakers({ failureThreshold: 1, coolDownMs: 100 });
    breakers.admit('http://u', deadline()).failed();
    const later = Date.now() + 200;
    const realNow = Date.now;
    try {
      Date.now = () => later;
      breakers.admit('http://u', later - 6000); // the probe, whose deadline is long past and never settles
      expect(() => breakers.admit('http://u', deadline())).not.toThrow();
    } finally {
      Date.now = realNow;
    }
  });
});
