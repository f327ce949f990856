/**
 * `npm run record -- --from <legacy base URL> --requests <file> --out <dir> [--redact]`
 * Records the legacy system's answers (src/migration/record.ts; docs/migration.md). The token comes
 * from LEGACY_ACCESS_TOKEN only; with --redact, the key from REDACTION_KEY.
 */
import { baseUrl, EXIT_OK, envToken, parseCliArgs, required, runCli } from '../src/migration/cli.ts';
import { recordRequests } from '../src/migration/record.ts';
import { createRedactor } from '../src/migration/redaction.ts';
import { readRequestsFile } from '../src/migration/requests-file.ts';

const USAGE = `usage: npm run record -- --from <base URL> --requests <file> --out <dir> [--redact]
  environment: LEGACY_ACCESS_TOKEN (the token, sent as access_token), REDACTION_KEY (with --redact)`;

runCli(USAGE, async () => {
  const args = parseCliArgs({
    from: { type: 'string' },
    requests: { type: 'string' },
    out: { type: 'string' },
    redact: { type: 'boolean', default: false },
  });
  const from = baseUrl(args.from, 'from');
  const requests = await readRequestsFile(required(args.requests, 'requests'));
  const outDir = required(args.out, 'out');
  const redactor = args.redact ? createRedactor(process.env.REDACTION_KEY) : undefined;
  const { files } = await recordRequests({
    from, requests, outDir, token: envToken('LEGACY_ACCESS_TOKEN'), redactor, log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stderr.write(`recorded ${files.length} requests into ${outDir}${redactor ? ' (redacted)' : ''}\n`);
  return EXIT_OK;
});
