/**
 * The bench's machinery: the servers' child process, loading one target with autocannon, and
 * comparing two targets in alternating rounds. Every row also says how much CPU the servers spent
 * per request and what share of the machine the load generator (this process) took: the two share
 * the cores, so a target that leaves more CPU to autocannon is measured at a higher rate.
 */
import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import type { ServerMemory, ServerUrls } from './constants.ts';

export interface Row {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time of the servers' process per request answered, µs (user + system); NaN for a target served elsewhere. */
  serverMicrosPerRequest: number;
  /** Share of the machine's CPU (all cores) the load generator took while loading this target. */
  loadGeneratorShare: number;
}

/** One line of the ratio table: a figure read against its target. */
export interface RatioLine {
  name: string;
  measured: string;
  target: string;
  /** Whether the target is met; undefined where the line is information, not a target. */
  met?: boolean;
}

/** What a group of rows adds to the report. */
export interface Section {
  rows: Row[];
  ratios: RatioLine[];
}

export interface LoadOptions {
  requests?: autocannon.Request[];
  /** Requests per second across all connections (autocannon's overallRate); unbounded without. */
  rate?: number;
  seconds?: number;
  /** No warm-up second before the measured run (a run that follows its own warm-up). */
  cold?: boolean;
  /** The target runs in a process of its own, not the servers' process: no servers' CPU figure for it. */
  servedElsewhere?: boolean;
}

/** The running servers and the settings of this run. */
export interface Bench {
  urls: ServerUrls;
  seconds: number;
  connections: number;
  /** Rounds of each alternating comparison. */
  rounds: number;
  /** The servers' process (the canned upstream's CPU is read from it by the WORKERS rows). */
  serversPid: number | undefined;
  load(name: string, url: string, options?: LoadOptions): Promise<Row>;
  memory(): Promise<ServerMemory>;
  stop(): Promise<void>;
}

const CORES = cpus().length;

export async function startBench(settings: { seconds: number; connections: number; rounds: number }): Promise<Bench> {
  const child = fork(new URL('./servers.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const urls = await new Promise<ServerUrls>((resolve) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line) as ServerUrls));
  });
  // One question at a time: the replies carry no name, and the soak's memory sampler asks while a load asks for CPU.
  let asking: Promise<unknown> = Promise.resolve();
  const ask = <T>(message: string): Promise<T> => {
    const reply = asking.then(() => askChild<T>(child, message));
    asking = reply.catch(() => undefined);
    return reply;
  };
  return {
    urls,
    ...settings,
    serversPid: child.pid,
    async load(name, url, options = {}) {
      const { requests, rate } = options;
      const common = { url, connections: settings.connections, requests, overallRate: rate };
      if (options.cold !== true) await autocannon({ ...common, duration: 1 }); // warm-up: JIT, pools, cache
      const serverBefore = await ask<number>('cpu');
      const ownBefore = process.cpuUsage();
      const started = performance.now();
      const result = await autocannon({ ...common, duration: options.seconds ?? settings.seconds });
      const elapsedMicros = (performance.now() - started) * 1000;
      const own = process.cpuUsage(ownBefore);
      const serverMicros = (await ask<number>('cpu')) - serverBefore;
      const row: Row = {
        name,
        requestsPerSecond: Math.round(result.requests.average),
        p50: result.latency.p50,
        p99: result.latency.p99,
        errors: result.errors + result.non2xx + result.timeouts,
        serverMicrosPerRequest: options.servedElsewhere === true ? Number.NaN : result.requests.total > 0 ? serverMicros / result.requests.total : 0,
        loadGeneratorShare: (own.user + own.system) / (elapsedMicros * CORES),
      };
      console.error(
        `  ${name}: ${row.requestsPerSecond} req/s, p99 ${row.p99} ms, servers ${cpuFigure(row)} µs/req, load generator ${percent(row.loadGeneratorShare)} of the machine`,
      );
      return row;
    },
    memory: () => ask<ServerMemory>('memory'),
    async stop() {
      child.send('stop');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

function askChild<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (reply) => resolve(reply as T));
    child.send(message);
  });
}

/**
 * Two targets loaded alternately, `rounds` times each (A B A B …), so that what the machine does
 * meanwhile falls on both alike. Each row is the median round; the ratios are the medians of the
 * rounds' own ratios (A over B of the same round), for throughput and for p99.
 */
export async function alternate(
  bench: Bench,
  a: { name: string; url: string; options?: LoadOptions },
  b: { name: string; url: string; options?: LoadOptions },
) {
  const aRows: Row[] = [];
  const bRows: Row[] = [];
  for (let round = 0; round < bench.rounds; round += 1) {
    aRows.push(await bench.load(a.name, a.url, a.options));
    bRows.push(await bench.load(b.name, b.url, b.options));
  }
  const throughput = median(aRows.map((row, index) => row.requestsPerSecond / bRows[index]!.requestsPerSecond));
  const p99 = median(aRows.map((row, index) => row.p99 / Math.max(1, bRows[index]!.p99)));
  const cpu = median(aRows.map((row, index) => row.serverMicrosPerRequest / bRows[index]!.serverMicrosPerRequest));
  return { a: medianRow(aRows), b: medianRow(bRows), throughput, p99, cpu };
}

/** The round with the median throughput (its own latencies and CPU, not a mix of rounds). */
function medianRow(rows: Row[]): Row {
  const sorted = [...rows].sort((x, y) => x.requestsPerSecond - y.requestsPerSecond);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function percent(share: number): string {
  return `${Math.round(share * 100)} %`;
}

/** The servers' CPU per request, or a dash for a target served by another process. */
export function cpuFigure(row: Row): string {
  return Number.isNaN(row.serverMicrosPerRequest) ? '—' : row.serverMicrosPerRequest.toFixed(0);
}

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
