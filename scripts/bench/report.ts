/**
 * The bench's report as markdown: the rows, the ratios against their targets, the mappers and the
 * round trips; and docs/performance.md rewritten with it (`--write`), its hand-written notes kept.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import type { MapperFigure } from './mapper-throughput.ts';
import { cpuFigure, percent, type Section } from './load.ts';
import { roundTripMarkdown, type RoundTripTable } from './round-trips.ts';

const MAPPER_TARGET = 100_000;

export function reportMarkdown(sections: Section[], mappers: MapperFigure[], roundTrips: RoundTripTable): string {
  const rows = sections.flatMap((section) => section.rows);
  const slowest = mappers.reduce((low, figure) => (figure.resourcesPerSecond < low.resourcesPerSecond ? figure : low));
  const ratios = [
    ...sections.flatMap((section) => section.ratios),
    {
      name: `slowest mapper (${slowest.shape}), resources/s`,
      measured: String(slowest.resourcesPerSecond),
      target: `≥ ${MAPPER_TARGET}`,
      met: slowest.resourcesPerSecond >= MAPPER_TARGET,
    },
  ];
  const mark = (met: boolean | undefined) => (met === undefined ? '' : met ? 'met' : '**not met**');
  return [
    `| target | req/s | p50 ms | p99 ms | errors | servers' CPU µs/req | load generator's share of the machine |`,
    `|---|---:|---:|---:|---:|---:|---:|`,
    ...rows.map((r) => `| ${r.name} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.errors} | ${cpuFigure(r)} | ${percent(r.loadGeneratorShare)} |`),
    '',
    `| ratio | measured | target | |`,
    `|---|---:|---:|---|`,
    ...ratios.map((line) => `| ${line.name} | ${line.measured} | ${line.target} | ${mark(line.met)} |`),
    '',
    `| mapper | FHIR input | resources/s |`,
    `|---|---|---:|`,
    ...mappers.map((m) => `| ${m.shape} | ${m.resourceType} | ${m.resourcesPerSecond} |`),
    '',
    'Upstream round trips per legacy operation (one patient), on the embedded server and behind each personality of test/support/personalities (more trips = a fallback; `—` = not served):',
    '',
    ...roundTripMarkdown(roundTrips),
  ].join('\n');
}

export interface RunFacts {
  seconds: number;
  connections: number;
  rounds: number;
  bodyBytes: number;
  largeBodyBytes: number;
  upstreamBytes: number;
}

/** Writes docs/performance.md: this run's header and tables, then the notes already there (written by hand). */
export async function writePerformanceDoc(table: string, facts: RunFacts): Promise<void> {
  const file = new URL('../../docs/performance.md', import.meta.url);
  const machine = `${process.platform} ${process.arch}, Node ${process.version}, ${cpus().length} cores`;
  const header =
    `# Performance\n\nMeasured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} (${machine}); ${facts.seconds} s per target and round, ` +
    `${facts.rounds} alternating rounds for each compared pair (the median round shown, ratios the median of the rounds' own), ${facts.connections} connections, ` +
    `load generator (autocannon) and servers sharing the machine: the last column says how much of it the load generator took. The legacy answers are ` +
    `${facts.bodyBytes} and ${facts.largeBodyBytes} bytes, the first mapped from a ${facts.upstreamBytes}-byte upstream Bundle of 20 DiagnosticReports. ` +
    `Re-run to refresh; the text below the tables is written by hand.\n\n`;
  const previous = await readFile(file, 'utf8').catch(() => '');
  const notes = previous.includes('\n## Notes') ? previous.slice(previous.indexOf('\n## Notes')) : '\n## Notes\n\n(none yet)\n';
  await writeFile(file, `${header}<!-- table: written by npm run bench -->\n${table}\n<!-- end table -->\n${notes}`);
}
