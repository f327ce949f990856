/**
 * The `check-upstream` command as a function (scripts/check-upstream.ts runs it on the process):
 * arguments, the token from the environment, the report, the exit code.
 */
import { parseArgs } from 'node:util';
import { ConfigError } from '../../../config.ts';
import { scrubToken } from '../../../../kit/token-scan.ts';
import { MIN_TOKEN_LENGTH_SOUGHT } from '../../../token-match.ts';
import type { Transport } from '../../../upstream/transport.ts';
import { formatJson, formatTable } from './report.ts';
import { checkUpstream } from './run.ts';

export const TOKEN_VARIABLE = 'UPSTREAM_ACCESS_TOKEN';
export const EXIT_SERVABLE = 0;
export const EXIT_NOT_SERVABLE = 1;
export const EXIT_USAGE = 2;

/** Service settings read from the environment, as the service would read them. */
const SETTINGS = [
  'UPSTREAM_TIMEOUT_MS',
  'UPSTREAM_MAX_PAGES',
  'UPSTREAM_PAGE_SIZE',
  'UPSTREAM_MAX_BODY_BYTES',
  'UPSTREAM_MAX_ATTEMPTS',
  'UPSTREAM_MAX_IN_FLIGHT',
  'UPSTREAM_MAX_IN_FLIGHT_PER_TYPE',
  'UPSTREAM_QUEUE_WAIT_MS',
] as const;

export const HELP = `usage: npm run check-upstream -- --url <FHIR base URL> --patient <id> [--json]

Tells you where you stand with a FHIR R4 server before putting this service in front of it. It
reads the server's CapabilityStatement, then sends every operation of the legacy interface for one
patient through the service itself (built in-process, response cache off, the token passed through
as the Bearer), one at a time: each search for the patient, and each by-id read of a record that
operation's own search found (none found: "no record to read", not a failure).

  --url URL       base URL of the FHIR server, e.g. https://fhir.example.org/fhir
  --patient ID    a patient of that server with records of many kinds
  --json          the report as JSON instead of a table
  --help          this text

Environment:
  ${TOKEN_VARIABLE}   the access token sent to the server (Authorization: Bearer), as a
                          legacy client's token would be; required (for a server that takes no
                          token, any value). Never an argument: arguments end up in shell history.
  ${SETTINGS.join(', ')}
                          the service's settings (see README, Configuration), when set.

Columns, one row per operation:
  OPERATION    the route's name in the route table (src/routes.ts)
  REQUEST      its method and path
  ROUND TRIPS  HTTP requests the service sent to the server for it (retries included; "throttled":
               answers 429/503 that were retried or given up on)
  TIME         how long the legacy request took
  RESULT       served natively; served with fallback (which: "include T:p" / "revinclude T:p"
               fetched by other searches, "param T:p filtered here" or "sent in another form",
               "includes refused (400)"); NOT SERVABLE (the status a legacy client would get, the
               OperationOutcome code, its text, and the kind of upstream failure); or no record to read
  What the service learns from one answer it keeps (as it does in production): the first operation
  of a type may show the discovery ("includes refused"), the later ones the steady state.

Exit codes: 0 every operation can be served (natively or with a fallback), 1 at least one cannot,
2 usage error or the check could not run.`;

export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  out: (text: string) => void;
  err: (text: string) => void;
  /** For tests: the transport to the server (undici by default). */
  transport?: Transport;
}

class UsageError extends Error {}

export async function runCheckUpstreamCli(args: readonly string[], io: CliIo): Promise<number> {
  const token = io.env[TOKEN_VARIABLE] === '' ? undefined : io.env[TOKEN_VARIABLE];
  // Nothing printed holds the token (catalog texts, route names, failure kinds); scrubbed anyway. Not a
  // placeholder of a few letters, given for a server that takes no token: it would blank out words.
  const scrub = (text: string) => (token !== undefined && token.length >= MIN_TOKEN_LENGTH_SOUGHT ? scrubToken(text, token) : text);
  try {
    const parsed = parse(args);
    if (parsed.help) {
      io.out(`${HELP}\n`);
      return EXIT_SERVABLE;
    }
    if (token === undefined)
      throw new UsageError(`${TOKEN_VARIABLE} is not set: the token sent to the server comes from it (any value for a server that takes none)`);
    const settings = Object.fromEntries(SETTINGS.flatMap((name) => (io.env[name] === undefined ? [] : [[name, io.env[name]!]])));
    const report = await checkUpstream({ url: parsed.url, patient: parsed.patient, token, settings, transport: io.transport });
    io.out(scrub(parsed.json ? formatJson(report) : formatTable(report)));
    return report.allServable ? EXIT_SERVABLE : EXIT_NOT_SERVABLE;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      io.err(`${scrub(error.message)}\n\n${HELP.split('\n')[0]}\n(--help for more)\n`);
    } else {
      io.err(`check-upstream could not run: ${scrub(error instanceof Error ? `${error.name}: ${error.message}` : String(error))}\n`);
    }
    return EXIT_USAGE;
  }
}

function parse(args: readonly string[]): { help: boolean; url: string; patient: string; json: boolean } {
  if (args.some((arg) => /^--?(access[-_]?)?token(=|$)/i.test(arg))) {
    throw new UsageError(`the token is never an argument (it would end up in shell history and process lists): set ${TOKEN_VARIABLE} instead`);
  }
  let values: { url?: string; patient?: string; json: boolean; help: boolean };
  try {
    values = parseArgs({
      args: [...args],
      options: { url: { type: 'string' }, patient: { type: 'string' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return { help: true, url: '', patient: '', json: false };
  return { help: false, url: baseUrl(values.url), patient: patientId(values.patient), json: values.json };
}

function baseUrl(value: string | undefined): string {
  if (value === undefined || value === '') throw new UsageError('--url is required');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError('--url is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--url must be an http or https URL');
  if (url.username !== '' || url.password !== '') throw new UsageError(`--url must not hold a user name or password: the token comes from ${TOKEN_VARIABLE}`);
  if (url.search !== '' || url.hash !== '' || value.includes('?') || value.includes('#'))
    throw new UsageError('--url must be a base URL, without a query or fragment');
  return value.replace(/\/+$/, '');
}

/** A FHIR id (R4: up to 64 of `A-Z a-z 0-9 - .`), as the legacy `patient` parameter takes it. */
function patientId(value: string | undefined): string {
  if (value === undefined || value === '') throw new UsageError('--patient is required');
  if (!/^[A-Za-z0-9\-.]{1,64}$/.test(value)) throw new UsageError('--patient must be a FHIR id (letters, digits, "-" and ".", at most 64)');
  return value;
}
