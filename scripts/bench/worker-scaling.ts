/**
 * "Misses with 2 workers vs 1": the compiled service (`node dist/node.js`, as production runs it)
 * started as a child process with WORKERS=1, then WORKERS=2, against the bench's canned upstream,
 * loaded with a new patient each request (every one a cache miss: parsed, mapped, serialized). On a
 * small machine the load generator, the canned upstream and the service share the cores, so the CPU
 * each took during the run is reported with the figures: a second worker can only win what the
 * others leave.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface WorkerRun<Row> {
  workers: number;
  row: Row;
  /**
   * CPU taken during the run, in cores (1 = one core busy the whole time). `primary`: the part of
   * `service` the cluster's primary took (handing connections over, forwarding log lines); 0 for a single process.
   */
  cores: { loadGenerator: number; service: number; primary: number; upstream: number | undefined };
}

export interface WorkerScalingOptions<Row> {
  /** Origin of the canned upstream (its FHIR base is `/fhir`). */
  upstream: string;
  /** The upstream's process, for its CPU share (the bench's servers process). */
  upstreamPid: number | undefined;
  cacheMaxBytes: number;
  /** Loads `url` the way every other row is loaded (warm-up, then the measured run), a new patient each request. */
  load: (name: string, url: string) => Promise<Row>;
}

export async function measureWorkerScaling<Row>(options: WorkerScalingOptions<Row>): Promise<WorkerRun<Row>[]> {
  // What operators run: built now, so the figures are those of the sources as they are.
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const runs: WorkerRun<Row>[] = [];
  for (const workers of [1, 2]) {
    const port = await freePort();
    const service = spawn(process.execPath, ['--enable-source-maps', 'dist/node.js'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        UPSTREAM_URL: `${options.upstream}/fhir`,
        HOST: '127.0.0.1',
        PORT: String(port),
        WORKERS: String(workers),
        CACHE_MAX_BYTES: String(options.cacheMaxBytes),
      },
      // Its log lines are written (their cost is part of serving) but not read: reading them would load the generator.
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    try {
      const url = `http://127.0.0.1:${port}`;
      await untilReady(url, service);
      const workerPids = childrenOf(service.pid!);
      const pids = [service.pid!, ...workerPids];
      const primary = workerPids.length === 0 ? [] : [service.pid!];
      const watched = options.upstreamPid === undefined ? [] : [options.upstreamPid];
      const before = {
        service: cpuSeconds(pids),
        primary: cpuSeconds(primary),
        upstream: cpuSeconds(watched),
        loader: process.cpuUsage(),
        at: performance.now(),
      };
      const row = await options.load(`facade, cache miss, WORKERS=${workers} (compiled, own process)`, url);
      const seconds = (performance.now() - before.at) / 1000;
      const loader = process.cpuUsage(before.loader);
      runs.push({
        workers,
        row,
        cores: {
          loadGenerator: (loader.user + loader.system) / 1e6 / seconds,
          service: (cpuSeconds(pids) - before.service) / seconds,
          primary: (cpuSeconds(primary) - before.primary) / seconds,
          upstream: watched.length === 0 ? undefined : (cpuSeconds(watched) - before.upstream) / seconds,
        },
      });
    } finally {
      await stop(service);
    }
  }
  return runs;
}

/** The ratio table's line: misses/s with 2 workers over 1, with who took the cores during each run. */
export function workerScalingRatio(runs: readonly WorkerRun<{ requestsPerSecond: number }>[]): { name: string; measured: string; target: string } {
  const [one, two] = runs;
  if (one === undefined || two === undefined) return { name: 'cache miss, 2 workers / 1', measured: 'not measured', target: '≥ 1.6' };
  const cores = (run: WorkerRun<unknown>) =>
    `${run.workers}: generator ${run.cores.loadGenerator.toFixed(2)}, service ${run.cores.service.toFixed(2)}` +
    (run.cores.primary === 0 ? '' : ` (primary ${run.cores.primary.toFixed(2)})`) +
    (run.cores.upstream === undefined ? '' : `, upstream ${run.cores.upstream.toFixed(2)}`);
  return {
    name: `cache miss, 2 workers / 1 (CPU in cores of ${cpus().length}, WORKERS=${cores(one)}; WORKERS=${cores(two)})`,
    measured: (two.row.requestsPerSecond / one.row.requestsPerSecond).toFixed(2),
    target: '≥ 1.6 (> 1 where a core is left free)',
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function untilReady(url: string, service: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (service.exitCode !== null) throw new Error(`the service exited (${service.exitCode}) before it was ready`);
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    if (Date.now() > deadline) throw new Error('the service was not ready within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The worker processes of a primary (none for a single process: ps then exits 1). */
function childrenOf(pid: number): number[] {
  try {
    const out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).trim();
    return out === '' ? [] : out.split(/\s+/).map(Number);
  } catch {
    return [];
  }
}

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** User + system CPU of these processes so far, in seconds (Linux /proc; a process gone counts 0). */
function cpuSeconds(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      // Fields after "pid (comm) ": utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return ticks / TICKS_PER_SECOND;
}

async function stop(service: ChildProcess): Promise<void> {
  if (service.exitCode !== null || service.signalCode !== null) return;
  const exited = new Promise((resolve) => service.once('exit', resolve));
  service.kill('SIGTERM');
  await exited;
}
