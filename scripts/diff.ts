/**
 * `npm run diff -- --recordings <dir> --target <URL> [--noise <dir>] [--rules rules.json] [--html report.html] [--json report.json] [--concurrency 4] [--redact]`
 * `npm run diff -- --left <URL> --right <URL> --requests <file> [the same options]`
 * Compares answers structurally (kit/replay-diff.ts), groups the differences by pattern
 * (diff-patterns.ts; docs/migration.md). Exit code 0: nothing but identical, accepted or noise;
 * 1: open differences; 2: could not compare (usage, files, network).
 */
import { writeFile } from 'node:fs/promises';
import { baseUrl, envToken, parseCliArgs, required, runCli, scrubTokens, TOKEN_VARIABLES, UsageError } from '../kit/cli.ts';
import { groupReport } from '../kit/diff-patterns.ts';
import { DEFAULT_RULES, loadRulesFile } from '../kit/diff-rules.ts';
import { renderHtmlReport } from '../kit/html-report.ts';
import { exitCodeOf, jsonReportText } from '../kit/json-report.ts';
import { createRedactor } from '../kit/redaction.ts';
import { DEFAULT_CONCURRENCY, type DiffReport, diffLive, diffRecordings } from '../kit/replay-diff.ts';
import { readRequestsFile } from '../kit/requests-file.ts';
import { formatTextReport } from '../kit/text-report.ts';

const USAGE = `usage: npm run diff -- --recordings <dir> --target <URL> [options]
       npm run diff -- --left <URL> --right <URL> --requests <file> [options]
  options: --noise <dir>        a second recording of the same requests from the old system:
                                what differs between the two is noise, left out of the verdict
           --rules rules.json   ignore and accept rules (docs/migration.md)
           --html report.html   --json report.json
           --concurrency N      requests in flight at once (default ${DEFAULT_CONCURRENCY})
           --redact             pseudonymize answers with REDACTION_KEY
  environment: TARGET_ACCESS_TOKEN (else LEGACY_ACCESS_TOKEN) for the target / right side,
               LEGACY_ACCESS_TOKEN for the left side, REDACTION_KEY (with --redact)`;

runCli(USAGE, async () => {
  const args = parseCliArgs({
    recordings: { type: 'string' },
    target: { type: 'string' },
    left: { type: 'string' },
    right: { type: 'string' },
    requests: { type: 'string' },
    noise: { type: 'string' },
    rules: { type: 'string' },
    html: { type: 'string' },
    json: { type: 'string' },
    concurrency: { type: 'string' },
    redact: { type: 'boolean', default: false },
  });
  const rules = args.rules ? await loadRulesFile(args.rules) : DEFAULT_RULES;
  const redactor = args.redact ? createRedactor(process.env.REDACTION_KEY) : undefined;
  const targetToken = envToken('TARGET_ACCESS_TOKEN') ?? envToken('LEGACY_ACCESS_TOKEN');
  // Every token of the environment is scrubbed from each answer as it arrives (not only the one sent).
  const alsoScrub = TOKEN_VARIABLES.map(envToken);
  const common = { rules, redactor, alsoScrub, noiseDir: args.noise, concurrency: concurrency(args.concurrency), onProgress: progressLine() };
  let report: DiffReport;
  try {
    if (args.recordings !== undefined || args.target !== undefined) {
      if (args.left !== undefined || args.right !== undefined) throw new UsageError('--recordings/--target and --left/--right are two different modes');
      report = await diffRecordings({
        ...common,
        recordingsDir: required(args.recordings, 'recordings'),
        target: baseUrl(args.target, 'target'),
        token: targetToken,
      });
    } else if (args.left !== undefined || args.right !== undefined) {
      report = await diffLive({
        ...common,
        left: baseUrl(args.left, 'left'),
        right: baseUrl(args.right, 'right'),
        requests: await readRequestsFile(required(args.requests, 'requests')),
        leftToken: envToken('LEGACY_ACCESS_TOKEN'),
        rightToken: targetToken,
      });
    } else {
      throw new UsageError('give --recordings and --target, or --left, --right and --requests');
    }
  } finally {
    common.onProgress?.(-1, 0);
  }
  const grouped = groupReport(report, rules.accept);
  // Scrubbed again, whatever produced the text.
  process.stdout.write(scrubTokens(formatTextReport(grouped)));
  if (args.html) {
    await writeFile(args.html, scrubTokens(renderHtmlReport(grouped)), 'utf8');
    process.stderr.write(`wrote ${args.html}\n`);
  }
  if (args.json) {
    await writeFile(args.json, scrubTokens(jsonReportText(grouped)), 'utf8');
    process.stderr.write(`wrote ${args.json}\n`);
  }
  return exitCodeOf(grouped);
});

function concurrency(text: string | undefined): number {
  if (text === undefined) return DEFAULT_CONCURRENCY;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 64) throw new UsageError('--concurrency must be a whole number from 1 to 64');
  return value;
}

/**
 * A progress line on standard error, rewritten in place, when it is a terminal only: never in a
 * CI log or a test's output. Called with -1 at the end to clear it.
 */
function progressLine(): ((done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  let shownAt = 0;
  return (done, total) => {
    if (done < 0) {
      process.stderr.write('\r\x1b[K');
      return;
    }
    const now = Date.now();
    if (now - shownAt < 100 && done < total) return;
    shownAt = now;
    process.stderr.write(`\r\x1b[Kdiffed ${done}/${total} requests`);
  };
}
