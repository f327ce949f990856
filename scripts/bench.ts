/**
 * `npm run bench`: starts what it needs on loopback, loads each target with autocannon and prints
 * the rows (req/s, p50, p99, the servers' CPU per request, the load generator's share of the
 * machine), the ratios against the targets, mapper throughput and the servers' memory, the shared cache tier and WORKERS=1 against 2; with
 * `--soak`, also the long mixed run; with `--write`, writes the same to docs/performance.md (the
 * tables; the notes below them are kept). Figures are read by people, never asserted.
 */
import { measureMappers } from './bench/mapper-throughput.ts';
import { startBench, type Section } from './bench/load.ts';
import { reportMarkdown, writePerformanceDoc } from './bench/report.ts';
import { measureRoundTrips } from './bench/round-trips.ts';
import { cacheOffSection, hitSection, largeHitSection, missSection } from './bench/rows.ts';
import { sharedTierSection, workersSection } from './bench/scale-out.ts';
import { CACHE_MAX_BYTES } from './bench/constants.ts';
import { soakSection } from './bench/soak.ts';
import { handleArgs } from './usage.ts';

const args = handleArgs(
  `usage: npm run bench [-- --write] [-- --soak]
  Measures the service against its targets on loopback and prints the figures.
  --write   also write them to docs/performance.md (the tables; its notes are kept)
  --soak    also run the soak: the cached facade at 80 % of its capacity, mixed hits and misses
  environment: BENCH_SECONDS (5) per target and round, BENCH_ROUNDS (3) of each compared pair,
               BENCH_CONNECTIONS (50), BENCH_SOAK_SECONDS (600)`,
  ['--write', '--soak'],
);

const bench = await startBench({
  seconds: Number(process.env.BENCH_SECONDS ?? 5),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
});
const { urls } = bench;
console.error(
  `benchmark: ${bench.seconds} s per target and round, ${bench.rounds} rounds, ${bench.connections} connections, legacy bodies ${urls.bodyBytes} and ${urls.largeBodyBytes} B, upstream body ${urls.upstreamBytes} B`,
);

// One line per group of rows (scripts/bench/rows.ts).
const sections: Section[] = [];
sections.push(await hitSection(bench));
sections.push(await largeHitSection(bench));
sections.push(await cacheOffSection(bench));
sections.push(await missSection(bench));
sections.push(await sharedTierSection(bench));
sections.push(await workersSection(bench, CACHE_MAX_BYTES));
if (args.includes('--soak')) sections.push(await soakSection(bench, Number(process.env.BENCH_SOAK_SECONDS ?? 600)));
await bench.stop();

const mappers = measureMappers();
console.error('  upstream round trips per operation behind each personality');
const roundTrips = await measureRoundTrips();
const table = reportMarkdown(sections, mappers, roundTrips);
console.log(table);
if (args.includes('--write')) {
  await writePerformanceDoc(table, { seconds: bench.seconds, connections: bench.connections, rounds: bench.rounds, ...urls });
  console.error('written to docs/performance.md');
}
process.exit(0);
