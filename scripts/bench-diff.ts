/**
 * `npm run bench:diff`: how long the diff takes on a site's traffic. Writes a synthetic site
 * (scripts/bench/diff-site.ts; `BENCH_DIFF_RECORDINGS`, default 10000), serves the "new system"'s
 * answers with the emulator in a child process (so it does not share the diff's event loop), and
 * runs the diff as `npm run diff -- --recordings … --target … --noise … --html … --json …` does,
 * timing each phase. Prints figures for people to read; nothing is asserted.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { groupReport } from '../kit/diff-patterns.ts';
import { rulesFrom } from '../kit/diff-rules.ts';
import { renderHtmlReport } from '../kit/html-report.ts';
import { jsonReportText } from '../kit/json-report.ts';
import { DEFAULT_CONCURRENCY, diffRecordings } from '../kit/replay-diff.ts';
import { formatTextReport } from '../kit/text-report.ts';
import { writeSite } from './bench/diff-site.ts';
import { handleArgs } from './usage.ts';

handleArgs(`usage: npm run bench:diff
  Diffs a synthetic site (BENCH_DIFF_RECORDINGS recordings, 10000; a noise recording; a target served
  by the emulator) at BENCH_DIFF_CONCURRENCY (the diff's default) and prints the time of each phase.`);

const COUNT = Number(process.env.BENCH_DIFF_RECORDINGS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_DIFF_CONCURRENCY ?? DEFAULT_CONCURRENCY);

const root = await mkdtemp(join(tmpdir(), 'bench-diff-'));
let emulator: ReturnType<typeof spawn> | undefined;
try {
  const seconds = (from: number) => (performance.now() - from) / 1000;
  let at = performance.now();
  const site = await writeSite(root, COUNT);
  const writing = seconds(at);
  console.error(`wrote ${COUNT} recordings ×3 in ${writing.toFixed(1)} s`);

  emulator = spawn(process.execPath, ['--import', 'tsx', 'scripts/emulate.ts', '--recordings', site.next, '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const target = await new Promise<string>((resolve, reject) => {
    emulator!.once('exit', (code) => reject(new Error(`the emulator stopped (${code})`)));
    createInterface({ input: emulator!.stderr! }).on('line', (line) => {
      const url = /emulating \d+ recordings on (\S+)/.exec(line)?.[1];
      if (url) resolve(url);
    });
  });

  const rules = rulesFrom({ compareBundleId: true });
  let peakRss = process.memoryUsage().rss;
  const sample = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const started = performance.now();
  at = started;
  const report = await diffRecordings({ recordingsDir: site.old, target, token: 'bench-token', rules, noiseDir: site.second, concurrency: CONCURRENCY });
  const diffing = seconds(at);
  at = performance.now();
  const grouped = groupReport(report, rules.accept);
  const grouping = seconds(at);
  at = performance.now();
  const text = formatTextReport(grouped);
  const texting = seconds(at);
  at = performance.now();
  const html = renderHtmlReport(grouped);
  await writeFile(join(root, 'report.html'), html);
  const htmling = seconds(at);
  at = performance.now();
  const json = jsonReportText(grouped);
  await writeFile(join(root, 'report.json'), json);
  const jsoning = seconds(at);
  const total = seconds(started);
  clearInterval(sample);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);

  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  const rows = [
    ['read, replay over HTTP, compare, and compare with the second recording', diffing, `${Math.round(COUNT / diffing)} requests/s`],
    ['group into patterns, noise, verdicts', grouping, ''],
    ['console report', texting, `${text.split('\n').length} lines`],
    ['HTML report', htmling, mb(html.length)],
    ['JSON report', jsoning, mb(json.length)],
    ['total (what npm run diff does after reading its arguments)', total, total < 60 ? 'under a minute' : 'OVER A MINUTE'],
  ] as const;
  console.log(
    `diff benchmark: ${COUNT} recordings, bodies ${mb(site.bodyBytes)} (mean ${(site.bodyBytes / COUNT / 1024).toFixed(1)} KB), ` +
      `concurrency ${CONCURRENCY}, target: the emulator in a child process; ${process.platform} ${process.arch}, Node ${process.version}, ${cpus().length} cores`,
  );
  console.log('');
  console.log('| phase | seconds | |');
  console.log('|---|---:|---|');
  for (const [phase, time, note] of rows) console.log(`| ${phase} | ${time.toFixed(2)} | ${note} |`);
  console.log('');
  console.log(
    `peak RSS of the diff's process: ${mb(peakRss)}; ${grouped.summary.differences} differences in ${grouped.summary.requestsWithDifferences} requests; outcome ${grouped.outcome}`,
  );
  for (const pattern of grouped.patterns)
    console.log(`  ${pattern.standing} ${pattern.kind} ${pattern.path}: ${pattern.requests} requests, ${pattern.differences} differences`);
  for (const pattern of grouped.noise?.patterns ?? []) console.log(`  noise ${pattern.path}: ${pattern.requests} requests, ${pattern.leftOut} left out`);
} finally {
  emulator?.kill();
  await rm(root, { recursive: true, force: true });
}
