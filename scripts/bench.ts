/**
 * `npm run bench`: starts what it needs on loopback, loads each target with autocannon and prints
 * one table (req/s, p50, p99), the hit/ceiling and miss/pass-through ratios, mapper throughput and
 * peak RSS; writes the same to docs/performance.md. Figures are read by people, never asserted.
 */
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { CACHE_MAX_BYTES, LEGACY_PATH } from './bench/servers.ts';
import { measureMappers } from './bench/mapper-throughput.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

interface Urls { upstream: string; cached: string; uncached: string; passThrough: string; ceiling: string; bodyBytes: number; upstreamBytes: number }
interface Row { name: string; requestsPerSecond: number; p50: number; p99: number; errors: number }

const child = fork(new URL('./bench/servers.ts', import.meta.url), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
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
const rows = [
  await load('Hono, the same bytes pre-serialized (ceiling)', `${urls.ceiling}${LEGACY_PATH}`),
  await load('facade, cache hit', `${urls.cached}${LEGACY_PATH}`),
  await load('facade, cache miss (cache off) on a fast canned upstream', `${urls.uncached}${LEGACY_PATH}`),
  await load('bare undici pass-through proxy to that upstream', `${urls.passThrough}/DiagnosticReport?patient=Patient%2F1`),
  await load('the canned upstream directly', `${urls.upstream}/fhir/DiagnosticReport?patient=Patient%2F1`),
];
const afterLoad = await ask<{ peakRssBytes: number }>('rss');

// Churn: many distinct cached answers, to show memory stays bounded by the cache's byte limit.
let patient = 0;
const churn = await load('facade, cache filled with distinct patients (churn)', `${urls.cached}${LEGACY_PATH}`, [
  { setupRequest: (request) => ({ ...request, path: `/api/DiagnosticReport?patient=${(patient += 1)}&access_token=bench-token` }) },
]);
const afterChurn = await ask<{ peakRssBytes: number; rssBytes: number }>('rss');
// A second churn as long as the first: with the byte bound working, peak RSS no longer grows.
const churnAgain = await load('facade, cache churn continued', `${urls.cached}${LEGACY_PATH}`, [
  { setupRequest: (request) => ({ ...request, path: `/api/DiagnosticReport?patient=${(patient += 1)}&access_token=bench-token` }) },
]);
const afterSecondChurn = await ask<{ peakRssBytes: number; rssBytes: number }>('rss');
child.send('stop');
await new Promise((resolve) => child.once('exit', resolve));

const mappers = measureMappers();
const [ceiling, hit, miss, passThrough] = rows as [Row, Row, Row, Row, Row];
const ratio = (a: Row, b: Row) => (a.requestsPerSecond / b.requestsPerSecond).toFixed(2);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const slowest = Math.min(...mappers.map((m) => m.resourcesPerSecond));

const lines = [
  `| target | req/s | p50 ms | p99 ms | errors |`,
  `|---|---:|---:|---:|---:|`,
  ...[...rows, churn, churnAgain].map((r) => `| ${r.name} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.errors} |`),
  '',
  `| ratio | measured | target |`,
  `|---|---:|---:|`,
  `| cache hit / ceiling | ${ratio(hit, ceiling)} | ≥ 0.9 |`,
  `| cache miss / pass-through | ${ratio(miss, passThrough)} | ≥ 0.7 |`,
  `| slowest mapper, resources/s | ${slowest} | ≥ 100000 |`,
  `| peak RSS of the servers' process: after load / after churn / after ${patient} distinct answers | ${mib(afterLoad.peakRssBytes)} / ${mib(afterChurn.peakRssBytes)} / ${mib(afterSecondChurn.peakRssBytes)} | bounded (cache limit ${mib(CACHE_MAX_BYTES)}) |`,
  '',
  `| mapper | FHIR input | resources/s |`,
  `|---|---|---:|`,
  ...mappers.map((m) => `| ${m.shape} | ${m.resourceType} | ${m.resourcesPerSecond} |`),
];
const table = lines.join('\n');
console.log(table);

const machine = `${process.platform} ${process.arch}, Node ${process.version}, ${(await import('node:os')).cpus().length} cores`;
const header = `# Performance\n\nMeasured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} (${machine}); ${SECONDS} s per target, ${CONNECTIONS} connections, load generator (autocannon) and servers sharing the machine. The legacy answer is ${urls.bodyBytes} bytes, mapped from a ${urls.upstreamBytes}-byte upstream Bundle of 20 DiagnosticReports. Re-run to refresh; the text below the table is written by hand.\n\n`;
const previous = await import('node:fs/promises').then((fs) => fs.readFile(new URL('../docs/performance.md', import.meta.url), 'utf8')).catch(() => '');
const notes = previous.includes('\n## Notes') ? previous.slice(previous.indexOf('\n## Notes')) : '\n## Notes\n\n(none yet)\n';
await writeFile(new URL('../docs/performance.md', import.meta.url), `${header}<!-- table: written by npm run bench -->\n${table}\n<!-- end table -->\n${notes}`);
console.error('written to docs/performance.md');
process.exit(0);
