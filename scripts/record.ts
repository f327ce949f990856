/**
 * `npm run record -- --from <legacy base URL> --requests <file> --out <dir> [--redact]`
 * `npm run record -- --from-log <access log> [--from-log …] [--sample N [--seed S]] --out-requests <file>`
 * `npm run record -- --from-log <access log> … --from <legacy base URL> --out <dir> [--redact]`
 * Records the legacy system's answers (kit/record.ts; docs/migration.md), for the
 * requests of a requests file or of the old system's access logs (kit/log-requests.ts).
 * The token comes from LEGACY_ACCESS_TOKEN only; with --redact, the key from REDACTION_KEY.
 */
import { writeFile } from 'node:fs/promises';
import { baseUrl, envToken, EXIT_OK, parseCliArgs, required, runCli, scrubTokens, TOKEN_VARIABLES, UsageError } from '../kit/cli.ts';
import { requestsFileText, selectionReport, selectLogRequests } from '../kit/log-requests.ts';
import { recordRequests } from '../kit/record.ts';
import { createRedactor } from '../kit/redaction.ts';
import { parseRequestsFile, readRequestsFile, type RequestSpec } from '../kit/requests-file.ts';

const USAGE = `usage: npm run record -- --from <base URL> --requests <file> --out <dir> [--redact]
       npm run record -- --from-log <access log> [--from-log <another>] [--sample N [--seed S]]
                         (--out-requests <file> | --from <base URL> --out <dir> [--redact] | both)
  environment: LEGACY_ACCESS_TOKEN (the token, sent as access_token), REDACTION_KEY (with --redact)`;

const stderr = (line: string) => process.stderr.write(`${scrubTokens(line)}\n`);

runCli(USAGE, async () => {
  const args = parseCliArgs({
    from: { type: 'string' },
    requests: { type: 'string' },
    'from-log': { type: 'string', multiple: true },
    'out-requests': { type: 'string' },
    sample: { type: 'string' },
    seed: { type: 'string' },
    out: { type: 'string' },
    redact: { type: 'boolean', default: false },
  });
  const logs = args['from-log'] ?? [];
  if (logs.length > 0 && args.requests !== undefined) throw new UsageError('--requests and --from-log exclude each other');
  if (logs.length === 0 && (args['out-requests'] !== undefined || args.sample !== undefined || args.seed !== undefined)) {
    throw new UsageError('--out-requests, --sample and --seed go with --from-log');
  }
  if (args.seed !== undefined && args.sample === undefined) throw new UsageError('--seed goes with --sample');
  const records = logs.length === 0 || args.from !== undefined || args.out !== undefined;
  if (!records && args['out-requests'] === undefined) throw new UsageError('--from-log needs --out-requests, or --from and --out, or both');
  if (!records && args.redact) throw new UsageError('--redact goes with --from and --out');
  const from = records ? baseUrl(args.from, 'from') : undefined;
  const outDir = records ? required(args.out, 'out') : undefined;
  const redactor = records && args.redact ? createRedactor(process.env.REDACTION_KEY) : undefined;

  let requests: RequestSpec[] = [];
  if (logs.length === 0) {
    requests = await readRequestsFile(required(args.requests, 'requests'));
  } else {
    if (args.sample !== undefined && !/^[1-9][0-9]*$/.test(args.sample)) throw new UsageError('--sample must be a positive whole number');
    const sample = args.sample === undefined ? undefined : Number(args.sample);
    const knownTokens = TOKEN_VARIABLES.map(envToken).filter((token): token is string => token !== undefined);
    const selection = await selectLogRequests(logs, { sample, seed: args.seed, knownTokens });
    selectionReport(selection).forEach(stderr);
    const text = requestsFileText(selection);
    if (args['out-requests'] !== undefined) {
      await writeFile(args['out-requests'], text, 'utf8');
      stderr(`wrote ${selection.requests.length} requests to ${args['out-requests']}`);
    }
    // Read back as record reads a requests file: what is recorded is exactly what a reviewer would see.
    if (records) requests = parseRequestsFile(text);
  }
  if (from === undefined || outDir === undefined) return EXIT_OK;
  // Recordings of a real old system hold patient data: without --redact that is a choice to make knowingly.
  if (!redactor)
    stderr('warning: recording without --redact: the recordings keep names, addresses, identifiers and notes as the old system sent them (docs/migration.md)');
  const { files } = await recordRequests({ from, requests, outDir, token: envToken('LEGACY_ACCESS_TOKEN'), redactor, log: stderr });
  stderr(`recorded ${files.length} requests into ${outDir}${redactor ? ' (redacted)' : ''}`);
  return EXIT_OK;
});
