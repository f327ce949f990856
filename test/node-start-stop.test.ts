/**
 * Starting and stopping the compiled service as an operator does: every way a start can fail is
 * one line on stderr naming the setting, and exit code 1; unknown settings are warned about;
 * `--help` prints usage; SIGTERM lets requests in progress finish, closes half-sent ones, and
 * leaves no process behind, whether it is sent to node or to `npm start`.
 */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { processTestBed, startCompiled, startProcess, type ServiceProcess } from './support/service-process.ts';

/** A canned upstream, the processes and the held ports of this file (support/service-process.ts). */
const bed = processTestBed();
const NO_UPSTREAM = 'http://127.0.0.1:9/fhir';

/** A port the test holds, so the service finds it in use. */
async function portInUse(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  bed.held.push(server);
  return (server.address() as AddressInfo).port;
}

function start(env: Record<string, string>, args: readonly string[] = []): ServiceProcess {
  const service = startCompiled({ HOST: '127.0.0.1', PORT: '0', EMBEDDED_FHIR_PORT: '0', ...env }, args);
  bed.running.push(service);
  return service;
}

/** Runs a start that must fail: its whole stderr, which must be one line. */
async function failedStart(env: Record<string, string>, args: readonly string[] = []): Promise<string> {
  const service = start(env, args);
  const { code } = await service.exited;
  expect(code, service.stderr()).toBe(1);
  const lines = service.stderr().trimEnd().split('\n');
  expect(lines, service.stderr()).toHaveLength(1);
  return lines[0]!;
}

describe('a start that cannot succeed says why in one line', () => {
  it.each([
    [{ UPSTREAM_URL: 'not-a-url' }, 'Cannot start: invalid configuration: UPSTREAM_URL: must be an absolute URL'],
    [{ PORT: '-1' }, 'Cannot start: invalid configuration: PORT: must be a whole number from 0 to 65535'],
    [{ UPSTREAM_URL: NO_UPSTREAM, HOST: '192.0.2.1' }, 'Cannot start: HOST: 192.0.2.1 is not an address of this machine'],
    [{ UPSTREAM_URL: NO_UPSTREAM, HOST: 'no-such-host.invalid' }, 'Cannot start: HOST: no-such-host.invalid does not resolve to an address'],
  ])('%o', async (env, line) => {
    expect(await failedStart(env)).toBe(line);
  });

  it('a port in use, named by its setting; the embedded port before any data is loaded', async () => {
    const port = await portInUse();
    expect(await failedStart({ UPSTREAM_URL: NO_UPSTREAM, PORT: String(port) })).toBe(`Cannot start: PORT: port ${port} on 127.0.0.1 is already in use`);
    const embedded = start({ EMBEDDED_FHIR_PORT: String(port) });
    expect((await embedded.exited).code).toBe(1);
    expect(embedded.stderr().trim()).toBe(`Cannot start: EMBEDDED_FHIR_PORT: port ${port} on 127.0.0.1 is already in use`);
    expect(embedded.stdout()).not.toContain('embedded FHIR upstream ready');
  });

  it('an unknown option and an unreadable --data folder', async () => {
    expect(await failedStart({ UPSTREAM_URL: NO_UPSTREAM }, ['--bogus'])).toBe("Cannot start: Unknown option '--bogus'");
    expect(await failedStart({}, ['--data', '/nonexistent-folder'])).toMatch(/^Cannot start: cannot load --data \/nonexistent-folder: .*ENOENT/);
  });

  it('--help prints the usage and exits 0', async () => {
    const service = start({}, ['--help']);
    expect((await service.exited).code).toBe(0);
    expect(service.stdout()).toMatch(/^usage: npm start \[-- --data DIR\]/);
    expect(service.stderr()).toBe('');
  });
});

describe('a start that succeeds', () => {
  it('names unknown settings that look like its own in a warning, and runs with the rest', async () => {
    const service = start({ UPSTREAM_URL: `${bed.upstream.origin}/fhir`, CACHE_TTL: '1000', UPSTREAM_TIMEOUT: '5', CACHE_TTL_MS: '1000' });
    await service.waitForLog('listening');
    expect(service.logLines().find((line) => line.level === 'warn')).toMatchObject({
      message: 'unknown settings ignored (misspelt?)',
      variables: 'CACHE_TTL,UPSTREAM_TIMEOUT',
    });
    service.child.kill('SIGTERM');
    expect((await service.exited).code).toBe(0);
  });
});

/** A request whose headers have not all been sent: the connection is open, no request has begun. */
function halfSentRequest(url: string): Promise<'closed'> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  // Refused or reset once the service stops: what the test waits for is the close.
  socket.on('error', () => undefined);
  socket.write('GET /api/DiagnosticReport?patient=1&access_token=t HTTP/1.1\r\nHost: x\r\n');
  return new Promise((resolve) => socket.once('close', () => resolve('closed')));
}

async function untilUpstreamReceives(count: number): Promise<void> {
  while (bed.upstream.received.length < count) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('a stop', () => {
  it('on SIGTERM: a request in progress finishes, a half-sent one is closed, one line is logged, exit 0', async () => {
    bed.searchDelayMs = 1500;
    const service = start({ UPSTREAM_URL: `${bed.upstream.origin}/fhir`, SHUTDOWN_TIMEOUT_MS: '8000' });
    const { url } = await service.waitForLog('listening');
    const half = halfSentRequest(String(url));
    const before = bed.upstream.received.length;
    const inProgress = fetch(`${String(url)}/api/DiagnosticReport?patient=1&access_token=t`);
    await untilUpstreamReceives(before + 1);
    const signalledAt = Date.now();
    service.child.kill('SIGTERM');
    expect(await half).toBe('closed');
    expect((await inProgress).status).toBe(200);
    const { code, at } = await service.exited;
    expect(code).toBe(0);
    expect(at - signalledAt).toBeLessThan(8000);
    expect(service.logLines().filter((line) => line.message === 'stopped')).toEqual([expect.objectContaining({ signal: 'SIGTERM', unfinishedRequests: 0 })]);
    await expect(fetch(`${String(url)}/healthz`)).rejects.toThrow();
  });

  it('cuts what is still in progress at SHUTDOWN_TIMEOUT_MS and still exits 0', async () => {
    bed.searchDelayMs = 20_000;
    const service = start({ UPSTREAM_URL: `${bed.upstream.origin}/fhir`, SHUTDOWN_TIMEOUT_MS: '500' });
    const { url } = await service.waitForLog('listening');
    const before = bed.upstream.received.length;
    const cut = fetch(`${String(url)}/api/DiagnosticReport?patient=2&access_token=t`).then(
      () => 'answered',
      () => 'cut',
    );
    await untilUpstreamReceives(before + 1);
    const signalledAt = Date.now();
    service.child.kill('SIGINT');
    const { code, at } = await service.exited;
    expect(code).toBe(0);
    expect(at - signalledAt).toBeLessThan(5000);
    expect(await cut).toBe('cut');
    expect(service.logLines().find((line) => line.message === 'stopped')).toMatchObject({ signal: 'SIGINT', unfinishedRequests: 1 });
  }, 30_000);

  it('SIGTERM to `npm start` reaches the service: no process is left behind', async () => {
    bed.searchDelayMs = 0;
    const npm = startProcess('npm', ['start', '--silent'], {
      HOST: '127.0.0.1',
      PORT: '0',
      UPSTREAM_URL: `${bed.upstream.origin}/fhir`,
      SHUTDOWN_TIMEOUT_MS: '3000',
    });
    bed.running.push(npm);
    const { url } = await npm.waitForLog('listening');
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(npm.child.pid)], { encoding: 'utf8' })
      .trim()
      .split(/\s+/)
      .map(Number);
    expect(children.length).toBeGreaterThan(0);
    void halfSentRequest(String(url));
    npm.child.kill('SIGTERM');
    await npm.exited;
    const deadline = Date.now() + 5000;
    const alive = () =>
      children.filter((pid) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      });
    while (alive().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(alive()).toEqual([]);
    await expect(fetch(`${String(url)}/healthz`)).rejects.toThrow();
    expect(npm.logLines().find((line) => line.message === 'stopped')).toMatchObject({ signal: 'SIGTERM' });
  }, 30_000);
});
