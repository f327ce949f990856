/**
 * `npm run diff -- --recordings <dir> --target <URL> [--rules rules.json] [--html report.html] [--redact]`
 * `npm run diff -- --left <URL> --right <URL> --requests <file> [--rules …] [--html …] [--redact]`
 * Compares answers structurally (src/migration/replay-diff.ts; docs/migration.md). Exit code 0: no
 * differences; 1: differences; 2: could not compare (usage, files, network).
 */
import { writeFile } from 'node:fs/promises';
import {
  baseUrl, EXIT_DIFFERENCES, EXIT_OK, envToken, parseCliArgs, required, runCli, scrubTokens, TOKEN_VARIABLES, UsageError,
} from '../src/migration/cli.ts';
import { DEFAULT_RULES, loadRulesFile } from '../src/migration/diff-rules.ts';
import { renderHtmlReport } from '../src/migration/html-report.ts';
import { createRedactor } from '../src/migration/redaction.ts';
import { diffLive, diffRecordings, summarize } from '../src/migration/replay-diff.ts';
import { readRequestsFile } from '../src/migration/requests-file.ts';
import { formatTextReport } from '../src/migration/text-report.ts';

const USAGE = `usage: npm run diff -- --recordings <dir> --target <URL> [--rules rules.json] [--html report.html] [--redact]
       npm run diff -- --left <URL> --right <URL> --requests <file> [--rules rules.json] [--html report.html] [--redact]
  environment: TARGET_ACCESS_TOKEN (else LEGACY_ACCESS_TOKEN) for the target / right side,
               LEGACY_ACCESS_TOKEN for the left side, REDACTION_KEY (with --redact)`;

runCli(USAGE, async () => {
  const args = parseCliArgs({
    recordings: { type: 'string' },
    target: { type: 'string' },
    left: { type: 'string' },
    right: { type: 'string' },
    requests: { type: 'string' },
    rules: { type: 'string' },
    html: { type: 'string' },
    redact: { type: 'boolean', default: false },
  });
  const rules = args.rules ? await loadRulesFile(args.rules) : DEFAULT_RULES;
  const redactor = args.redact ? createRedactor(process.env.REDACTION_KEY) : undefined;
  const targetToken = envToken('TARGET_ACCESS_TOKEN') ?? envToken('LEGACY_ACCESS_TOKEN');
  // Every token of the environment is scrubbed from each answer as it arrives (not only the one sent).
  const alsoScrub = TOKEN_VARIABLES.map(envToken);
  let report;
  if (args.recordings !== undefined || args.target !== undefined) {
    if (args.left !== undefined || args.right !== undefined) throw new UsageError('--recordings/--target and --left/--right are two different modes');
    report = await diffRecordings({
      recordingsDir: required(args.recordings, 'recordings'), target: baseUrl(args.target, 'target'), token: targetToken, rules, redactor, alsoScrub,
    });
  } else if (args.left !== undefined || args.right !== undefined) {
    report = await diffLive({
      left: baseUrl(args.left, 'left'),
      right: baseUrl(args.right, 'right'),
      requests: await readRequestsFile(required(args.requests, 'requests')),
      leftToken: envToken('LEGACY_ACCESS_TOKEN'),
      rightToken: targetToken,
      rules,
      redactor,
      alsoScrub,
    });
  } else {
    throw new UsageError('give --recordings and --target, or --left, --right and --requests');
  }
  // Scrubbed again, whatever produced the text.
  process.stdout.write(scrubTokens(formatTextReport(report)));
  if (args.html) {
    await writeFile(args.html, scrubTokens(renderHtmlReport(report)), 'utf8');
    process.stderr.write(`wrote ${args.html}\n`);
  }
  return summarize(report).differences > 0 ? EXIT_DIFFERENCES : EXIT_OK;
});
