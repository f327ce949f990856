/**
 * `npm run check-upstream -- --url <FHIR base URL> --patient <id> [--json]`
 * Where a hospital stands with its FHIR server: every legacy operation for one patient, served
 * natively, with a fallback, or not (src/entry/node/check-upstream/; `--help`). Token from UPSTREAM_ACCESS_TOKEN only.
 */
import { runCheckUpstreamCli } from '../src/entry/node/check-upstream/cli.ts';

process.exitCode = await runCheckUpstreamCli(process.argv.slice(2), {
  env: process.env,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
