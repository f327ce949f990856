/**
 * Readiness (`/readyz`) against real upstreams: 503 while the upstream does not answer its
 * CapabilityStatement or the start has not finished, 200 once both hold; `/healthz` is liveness
 * only. The legacy operations answer 503 `service-starting` until the start has finished.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { assembleFacade } from '../src/assemble.ts';
import { silentAuditSink } from '../src/audit.ts';
import { parseConfig } from '../src/config.ts';
import { silentLogger } from '../src/log.ts';
import { fetchTransport } from '../src/upstream/transport.ts';
import { METADATA, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

let service: TestService | undefined;
let upstream: CannedUpstream | undefined;
afterEach(async () => {
  await service?.close();
  await upstream?.close();
  service = undefined;
  upstream = undefined;
});

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function readyz(): Promise<{ status: number; body: { status: string; checks: Record<string, string> } }> {
  const response = await service!.get('/readyz');
  return { status: response.status, body: (await response.json()) as { status: string; checks: Record<string, string> } };
}

describe('/readyz', () => {
  it('is 503 while the upstream is unreachable, though /healthz says the process lives', async () => {
    service = await startTestService({ UPSTREAM_URL: `http://127.0.0.1:${await closedPort()}/fhir` });
    expect(await readyz()).toEqual({ status: 503, body: { status: 'not-ready', checks: { started: 'ok', upstream: 'unreachable' } } });
    expect((await service.get('/healthz')).status).toBe(200);
  });

  it('turns 200 once the upstream answers its CapabilityStatement, and asks it at most once a second meanwhile', async () => {
    let answering = false;
    upstream = await startCannedUpstream(
      (request, response) => {
        if (!request.url.endsWith('/metadata')) return sendJson(response, 404, {});
        return answering ? sendJson(response, 200, METADATA) : sendJson(response, 503, {});
      },
      { answersMetadata: false },
    );
    service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir` });
    for (let probe = 0; probe < 5; probe += 1) expect((await readyz()).status).toBe(503);
    const askedWhileDown = upstream.received.filter((request) => request.url.endsWith('/metadata')).length;
    expect(askedWhileDown).toBeGreaterThanOrEqual(1);
    expect(askedWhileDown).toBeLessThanOrEqual(2);
    answering = true;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ready', checks: { started: 'ok', upstream: 'ok' } } });
    expect((await service.get('/readyz')).headers.get('cache-control')).toBe('no-store');
  });

  it('is 200 on the embedded upstream once its data has loaded', async () => {
    service = await startTestService();
    expect((await readyz()).status).toBe(200);
  });
});

describe('before the start has finished', () => {
  it('answers the legacy operations 503 service-starting with Retry-After, and /readyz 503 starting', async () => {
    upstream = await startCannedUpstream();
    const config = parseConfig({ UPSTREAM_URL: `${upstream.origin}/fhir` });
    const { app } = assembleFacade(config, {
      upstreamUrl: config.UPSTREAM_URL!,
      transport: fetchTransport(),
      logger: silentLogger,
      audit: silentAuditSink,
      shareCacheLoads: false,
      started: () => false,
    });
    const response = await app.fetch(new Request('http://facade.test/api/DiagnosticReport?patient=1&access_token=t'));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'transient', details: { text: 'service-starting' } }] });
    const ready = await app.fetch(new Request('http://facade.test/readyz'));
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'not-ready', checks: { started: 'starting', upstream: 'not-asked' } });
    expect(upstream.received).toEqual([]);
  });
});
