/**
 * `npm run bench`: starts what it needs on loopback, loads each target with autocannon and prints
 * one table (req/s, p50, p99), the hit/ceiling and miss/pass-through ratios, mapper throughput and
 * peak RSS; with `--write`, writes the same to docs/performance.md (the table; the notes below it
 * are kept). Figures are read by people, never asserted.
 */
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { CACHE_MAX_BYTES, EMPTY_PATIENTS_FROM, LEGACY_PATH } from './bench/constants.ts';
import { measureMappers } from './bench/mapper-throughput.ts';
import { measureRoundTrips, roundTripMarkdown } from './bench/round-trips.ts';
import { measureSharedTier } from './bench/shared-tier.ts';
import { measureWorkerScaling, workerScalingRatio } from './bench/worker-scaling.ts';
import { handleArgs } from './usage.ts';

const args = handleArgs(`usage: npm run bench [-- --write]
  Measures the service against its targets on loopback and prints the figures.
  --write   also write them to docs/performance.md (the table; its notes are kept)
  environment: BENCH_SECONDS (10) per target, BENCH_CONNECTIONS (50)`, ['--write']);

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

interface Urls { upstream: string; cached: string; uncached: string; passThrough: string; ceiling: string; bodyBytes: number; upstreamBytes: number }
interface Row { name: string; requestsPerSecond: number; p50: number; p99: number; errors: number }
interface Memory { peakRssBytes: number; rssBytes: number; heapUsedBytes: number }

const child = fork(new URL('./bench/servers.ts', import.meta.url), [], { execArgv: ['--import', 'tsx', '--expose-gc'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
const urls = await new Promise<Urls>((resolve) => {
  createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line) as Urls));
});
const ask = <T>(message: string) => new Promise<T>((resolve) => { child.once('message', (reply) => resolve(reply as T)); child.send(message); });

async function load(name: string, url: string, requests?: autocannon.Request[]): Promise<Row> {
  await autocannon({ url, connections: CONNECTIONS, duration: 1, requests }); // warm-up: JIT, pools, cache
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, requests });
  const row = { name, requestsPerSecond: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
  console.error(`  ${name}: ${row.requestsPerSecond} req/s`);
  return row;
}

console.error(`benchmark: ${SECONDS}s per target, ${CONNECTIONS} connections, legacy body ${urls.bodyBytes} B, upstream body ${urls.upstreamBytes} B`);
const [ceiling, hit, bypass, passThrough, direct] = [
  await load('Hono, the same bytes pre-serialized (ceiling)', `${urls.ceiling}${LEGACY_PATH}`),
  await load('facade, cache hit', `${urls.cached}${LEGACY_PATH}`),
  await load('facade, cache off (every request parsed, mapped, serialized)', `${urls.uncached}${LEGACY_PATH}`),
  await load('bare undici pass-through proxy to that upstream', `${urls.passThrough}/DiagnosticReport?patient=Patient%2F1`),
  await load('the canned upstream directly', `${urls.upstream}/fhir/DiagnosticReport?patient=Patient%2F1`),
];
const afterLoad = await ask<Memory>('rss');

/** A run where every request names a new patient: each one a real cache miss, stored and evicting. */
let patient = 0;
const distinct = (from: number): autocannon.Request[] => [
  { setupRequest: (request) => ({ ...request, path: `/api/DiagnosticReport?patient=${from + (patient += 1)}&access_token=bench-token` }) },
];
const miss = await load('facade, cache miss (a new patient each request; cache full, evicting)', `${urls.cached}${LEGACY_PATH}`, distinct(0));
const afterChurn = await ask<Memory>('rss');
const missAgain = await load('facade, cache miss, continued', `${urls.cached}${LEGACY_PATH}`, distinct(0));
const afterSecondChurn = await ask<Memory>('rss');
// Many tiny answers: the byte bound must count keys and per-entry overhead, not bodies alone.
const tiny = await load('facade, cache miss on empty answers (many tiny entries)', `${urls.cached}${LEGACY_PATH}`, distinct(EMPTY_PATIENTS_FROM));
const afterTiny = await ask<Memory>('rss');
// The shared cache tier (Redis) on the same upstream: its own servers, in a child of their own.
const sharedTier = await measureSharedTier({ load, newPatients: distinct, upstream: urls.upstream });
// WORKERS=1 and 2 of the compiled service, against the same canned upstream (scripts/bench/worker-scaling.ts).
const workerRuns = await measureWorkerScaling({ upstream: urls.upstream, upstreamPid: child.pid, cacheMaxBytes: CACHE_MAX_BYTES, load: (name, url) => load(name, url, distinct(0)) });
child.send('stop');
await new Promise((resolve) => child.once('exit', resolve));
const rows = [ceiling, hit, bypass, passThrough, direct, miss, missAgain, tiny, ...sharedTier, ...workerRuns.map((run) => run.row)];

const mappers = measureMappers();
console.error('  upstream round trips per operation behind each personality');
const roundTrips = await measureRoundTrips();
const ratio = (a: Row, b: Row) => (a.requestsPerSecond / b.requestsPerSecond).toFixed(2);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const slowest = Math.min(...mappers.map((m) => m.resourcesPerSecond));

const lines = [
  `| target | req/s | p50 ms | p99 ms | errors |`,
  `|---|---:|---:|---:|---:|`,
  ...rows.map((r) => `| ${r.name} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.errors} |`),
  '',
  `| ratio | measured | target |`,
  `|---|---:|---:|`,
  `| cache hit / ceiling | ${ratio(hit, ceiling)} | ≥ 0.9 |`,
  `| cache miss / pass-through | ${ratio(miss, passThrough)} (cache off: ${ratio(bypass, passThrough)}) | ≥ 0.7 |`,
  workerScalingRatio(workerRuns),
  `| slowest mapper, resources/s | ${slowest} | ≥ 100000 |`,
  `| servers' process, peak RSS: after load / after misses / after more misses / after tiny entries | ${[afterLoad, afterChurn, afterSecondChurn, afterTiny].map((m) => mib(m.peakRssBytes)).join(' / ')} | bounded (cache limit ${mib(CACHE_MAX_BYTES)}) |`,
  `| servers' process, heap after a full GC: same points | ${[afterLoad, afterChurn, afterSecondChurn, afterTiny].map((m) => mib(m.heapUsedBytes)).join(' / ')} | grows by at most the cache limit |`,
  '',
  `| mapper | FHIR input | resources/s |`,
  `|---|---|---:|`,
  ...mappers.map((m) => `| ${m.shape} | ${m.resourceType} | ${m.resourcesPerSecond} |`),
  '',
  'Upstream round trips per legacy operation (one patient), on the embedded server and behind each personality of test/support/personalities (more trips = a fallback; `—` = not served):',
  '',
  ...roundTripMarkdown(roundTrips),
];
const table = lines.join('\n');
console.log(table);

const machine = `${process.platform} ${process.arch}, Node ${process.version}, ${(await import('node:os')).cpus().length} cores`;
const header = `# Performance\n\nMeasured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} (${machine}); ${SECONDS} s per target, ${CONNECTIONS} connections, load generator (autocannon) and servers sharing the machine. The legacy answer is ${urls.bodyBytes} bytes, mapped from a ${urls.upstreamBytes}-byte upstream Bundle of 20 DiagnosticReports. Re-run to refresh; the text below the table is written by hand.\n\n`;
if (!args.includes('--write')) process.exit(0);
const previous = await import('node:fs/promises').then((fs) => fs.readFile(new URL('../docs/performance.md', import.meta.url), 'utf8')).catch(() => '');
const notes = previous.includes('\n## Notes') ? previous.slice(previous.indexOf('\n## Notes')) : '\n## Notes\n\n(none yet)\n';
await writeFile(new URL('../docs/performance.md', import.meta.url), `${header}<!-- table: written by npm run bench -->\n${table}\n<!-- end table -->\n${notes}`);
console.error('written to docs/performance.md');
process.exit(0);
