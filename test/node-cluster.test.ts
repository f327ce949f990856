/**
 * `WORKERS=2` as an operator runs it, compiled: two worker processes serve the port (each request
 * log line names its worker; /metrics merges both), the embedded upstream loads once, a worker
 * killed is replaced while the other serves, SIGTERM drains every worker and leaves no process, and
 * a start that fails in every worker says why in one line.
 */
import { execFileSync } from 'node:child_process';
import { get } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { processTestBed, startCompiled, type ServiceProcess } from './support/service-process.ts';

/** A canned upstream, the processes and the held ports of this file (support/service-process.ts). */
const bed = processTestBed();
const LEGACY = '/api/DiagnosticReport?patient=1&access_token=t';

function start(env: Record<string, string>): ServiceProcess {
  const service = startCompiled({ HOST: '127.0.0.1', PORT: '0', EMBEDDED_FHIR_PORT: '0', WORKERS: '2', ...env });
  bed.running.push(service);
  return service;
}

/** The pid of each worker slot, as the primary's 'worker started' lines last said. */
function workerPids(service: ServiceProcess): Map<number, number> {
  const pids = new Map<number, number>();
  for (const line of service.logLines()) if (line.message === 'worker started') pids.set(Number(line.worker), Number(line.pid));
  return pids;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A GET on a connection of its own (so each is handed to a worker afresh), cut after 5 s. */
function getOnce(url: string): Promise<{ status: number; etag: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const request = get(url, { agent: false, timeout: 5000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, etag: response.headers.etag, body }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error('no answer in 5 s')));
    request.on('error', reject);
  });
}

async function stopAndExpectNothingLeft(service: ServiceProcess, url: string): Promise<void> {
  const pids = [...workerPids(service).values()];
  service.child.kill('SIGTERM');
  expect((await service.exited).code).toBe(0);
  expect(service.logLines().filter((line) => line.message === 'stopped')).toEqual([
    expect.objectContaining({ signal: 'SIGTERM', unfinishedRequests: 0, workers: 2 }),
  ]);
  expect(pids.filter(isAlive)).toEqual([]);
  await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  expect(service.stderr()).toBe('');
}

describe('WORKERS=2', () => {
  it('serves from two processes, with the embedded upstream loaded once and the same ETag from either', async () => {
    const service = start({});
    const { url, workers } = await service.waitForLog('listening');
    expect(workers).toBe(2);
    const pids = workerPids(service);
    expect(pids.size).toBe(2);
    expect(new Set(pids.values()).size).toBe(2);
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(service.child.pid)], { encoding: 'utf8' })
      .trim()
      .split(/\s+/)
      .map(Number);
    expect(children.sort()).toEqual([...pids.values()].sort());
    const loaded = service.logLines().filter((line) => line.message === 'embedded FHIR upstream ready');
    expect(loaded).toHaveLength(1);

    // New connections go to the workers in turn: a few at once reach both (more are asked if the machine is slow).
    const servedBy = () =>
      new Set(
        service
          .logLines()
          .filter((line) => line.message === 'request' && line.route === 'DiagnosticReport.search')
          .map((line) => line.worker),
      );
    const answers: { status: number; etag: string | undefined }[] = [];
    for (let batch = 0; batch < 10 && servedBy().size < 2; batch += 1) {
      answers.push(...(await Promise.all(Array.from({ length: 4 }, () => getOnce(`${String(url)}${LEGACY}`)))));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(servedBy()).toEqual(new Set([1, 2]));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((answer) => answer.etag)).size).toBe(1);

    const metrics = (await getOnce(`${String(url)}/metrics`)).body;
    for (const worker of [1, 2])
      expect(metrics).toMatch(new RegExp(`^facade_requests_total\\{worker="${worker}",route="DiagnosticReport.search",status="200"\\} \\d+$`, 'm'));
    expect(metrics).toMatch(/^facade_workers 2$/m);
    expect(metrics.match(/^# TYPE facade_requests_total counter$/gm)).toHaveLength(1);

    const embeddedUrl = String(loaded[0]!.baseUrl);
    await stopAndExpectNothingLeft(service, String(url));
    await expect(fetch(`${embeddedUrl}/metadata`)).rejects.toThrow();
  }, 40_000);

  it('replaces a worker killed with SIGKILL while the other one serves', async () => {
    bed.searchDelayMs = 0;
    const service = start({ UPSTREAM_URL: `${bed.upstream.origin}/fhir` });
    const { url } = await service.waitForLog('listening');
    const before = workerPids(service);
    const outcomes: string[] = [];
    let loading = true;
    // Two clients asking without pause, each request on a new connection, until the replacement serves.
    const client = async () => {
      while (loading)
        outcomes.push(
          await getOnce(`${String(url)}${LEGACY}`).then(
            (answer) => String(answer.status),
            (error: Error) => error.message,
          ),
        );
    };
    const clients = [client(), client()];
    await new Promise((resolve) => setTimeout(resolve, 300));
    const answeredBeforeKill = outcomes.length;
    process.kill(before.get(1)!, 'SIGKILL');
    await until(() => workerPids(service).get(1) !== before.get(1));
    const restartedAt = service.logLines().findIndex((line) => line.message === 'worker started' && line.pid === workerPids(service).get(1));
    await until(() =>
      service
        .logLines()
        .slice(restartedAt)
        .some((line) => line.route === 'DiagnosticReport.search' && line.worker === 1),
    );
    loading = false;
    await Promise.all(clients);

    expect(answeredBeforeKill).toBeGreaterThan(0);
    // Only what was in progress on the killed worker may fail: one request per client at most. (A
    // connection node:cluster was handing to it at its death is left open, so that one fails by the
    // client's timeout: docs/decisions.md, "Every core".)
    const failed = outcomes.filter((outcome) => outcome !== '200');
    expect(failed.length, failed.join('; ')).toBeLessThanOrEqual(2);
    expect(outcomes.length - failed.length).toBeGreaterThan(answeredBeforeKill);
    expect(isAlive(workerPids(service).get(1)!)).toBe(true);
    expect(service.logLines().filter((line) => line.message === 'worker exited')).toEqual([
      expect.objectContaining({ level: 'warn', worker: 1, pid: before.get(1), signal: 'SIGKILL' }),
    ]);
    expect((await getOnce(`${String(url)}/metrics`)).body).toMatch(/^facade_worker_restarts_total\{worker="1"\} 1$/m);
    await stopAndExpectNothingLeft(service, String(url));
  }, 40_000);

  it('on SIGTERM to the primary: a request in progress finishes, every process exits, the port closes, exit 0', async () => {
    bed.searchDelayMs = 1500;
    const service = start({ UPSTREAM_URL: `${bed.upstream.origin}/fhir`, SHUTDOWN_TIMEOUT_MS: '8000' });
    const { url } = await service.waitForLog('listening');
    const received = bed.upstream.received.length;
    const inProgress = getOnce(`${String(url)}${LEGACY}`);
    await until(() => bed.upstream.received.length > received);
    const signalledAt = Date.now();
    const stopped = stopAndExpectNothingLeft(service, String(url));
    expect((await inProgress).status).toBe(200);
    await stopped;
    expect(Date.now() - signalledAt).toBeLessThan(8000);
  }, 30_000);
});

describe('a WORKERS start that cannot succeed says why in one line', () => {
  async function failedStart(env: Record<string, string>): Promise<ServiceProcess> {
    const service = start(env);
    expect((await service.exited).code, service.stderr()).toBe(1);
    return service;
  }

  it('a bad WORKERS value', async () => {
    const service = await failedStart({ UPSTREAM_URL: `${bed.upstream.origin}/fhir`, WORKERS: '0' });
    expect(service.stderr()).toBe('Cannot start: invalid configuration: WORKERS: must be auto or a whole number from 1 to 1024\n');
  });

  it('the port in use, failing in every worker: one line, before any data is loaded', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    bed.held.push(blocker);
    const { port } = blocker.address() as AddressInfo;
    const service = await failedStart({ PORT: String(port) });
    expect(service.stderr()).toBe(`Cannot start: PORT: port ${port} on 127.0.0.1 is already in use\n`);
    expect(service.stdout()).not.toContain('embedded FHIR upstream ready');
    expect(service.stdout()).not.toContain('worker started');
  });
});
