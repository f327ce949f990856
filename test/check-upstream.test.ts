/**
 * `npm run check-upstream` (src/entry/node/check-upstream/, scripts/check-upstream.ts): one row per operation
 * of the route table, against the embedded server (all native), behind personality proxies (the
 * fallbacks they force, named in the rows; every personality of the catalog fully served), and
 * against an upstream that fails one type (not servable, why, exit 1). The token never appears in
 * what it prints. Output is captured, never printed.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheckUpstreamCli } from '../src/entry/node/check-upstream/cli.ts';
import type { CheckReport, OperationRow } from '../src/entry/node/check-upstream/run.ts';
import { ROUTES } from '../src/routes.ts';
import { startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';
import { PERSONALITIES } from './support/personalities/catalog.ts';
import { startPersonalityProxy, type PersonalityProxy } from './support/personalities/personality-proxy.ts';

const TOKEN = 'check-upstream-secret-token-7f3a';
const run = promisify(execFile);

let plain: TestService;
let patient: string;

beforeAll(async () => {
  plain = await startTestService({ CACHE_ENABLED: 'false' });
  const patients = (await (await fetch(`${plain.upstreamUrl}/Patient?_count=1`)).json()) as { entry: { resource: { id: string } }[] };
  patient = patients.entry[0]!.resource.id;
});
afterAll(async () => plain?.close());

/** Runs the command in-process with its output captured. */
async function check(
  url: string,
  options: { json?: boolean; env?: Readonly<Record<string, string>> } = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const args = ['--url', url, '--patient', patient, ...(options.json ? ['--json'] : [])];
  const code = await runCheckUpstreamCli(args, {
    env: { UPSTREAM_ACCESS_TOKEN: TOKEN, ...options.env },
    out: (text) => (out += text),
    err: (text) => (err += text),
  });
  expect(out + err, 'the token is printed').not.toContain(TOKEN);
  return { code, out, err };
}

async function report(url: string, env?: Readonly<Record<string, string>>): Promise<{ code: number; report: CheckReport; table: string }> {
  const json = await check(url, { json: true, env });
  expect(json.err).toBe('');
  return { code: json.code, report: JSON.parse(json.out) as CheckReport, table: json.out };
}

const rowOf = (rows: readonly OperationRow[], name: string) => rows.find((row) => row.operation === name)!;
const unserved = (rows: readonly OperationRow[]) => rows.filter((row) => row.outcome !== 'native' && row.outcome !== 'fallback');

describe('against the embedded server', () => {
  it('prints one row per operation, each served natively in round trips it counts, and exits 0', async () => {
    const { code, out } = await check(plain.upstreamUrl);
    expect(code, out).toBe(0);
    for (const route of ROUTES)
      expect(out).toMatch(new RegExp(`^${route.name.replace('.', '\\.')}\\s+${route.method} \\S+\\s+1\\s+\\d+ ms\\s+served natively$`, 'm'));
    expect(out).toContain('CapabilityStatement: Embedded FHIR server');
    expect(out).toContain(`${ROUTES.length} operations: ${ROUTES.length} served natively, 0 with a fallback, 0 not servable`);
  });

  it('--json gives the same rows for a machine', async () => {
    const { code, report: json } = await report(plain.upstreamUrl);
    expect(code).toBe(0);
    expect(json.rows.map((row) => row.operation)).toEqual(ROUTES.map((route) => route.name));
    expect(json.allServable).toBe(true);
    expect(json.rows.every((row) => row.outcome === 'native' && row.status === 200 && row.roundTrips === 1 && row.fallbacks.length === 0)).toBe(true);
  });
});

describe('behind personalities that force fallbacks', () => {
  const proxies: PersonalityProxy[] = [];
  afterAll(async () => Promise.all(proxies.map((proxy) => proxy.close())));
  const proxyFor = async (name: string) => {
    const proxy = await startPersonalityProxy(PERSONALITIES.find((personality) => personality.name === name)!, plain.upstreamUrl);
    proxies.push(proxy);
    return proxy;
  };

  it('cerner-includes-ignored: the include and revinclude fallbacks, in the rows', async () => {
    const proxy = await proxyFor('cerner-includes-ignored');
    const { code, out } = await check(proxy.baseUrl);
    expect(code, out).toBe(0);
    expect(out).toMatch(/^Encounter\.search .*served with fallback: .*include Encounter:patient.*revinclude DocumentReference:encounter/m);
    expect(out).toMatch(/^CareTeam\.search .*served with fallback: .*include CareTeam:participant/m);
    expect(out).toMatch(/^Orders\.search .*served with fallback: revinclude DiagnosticReport:based-on$/m);
    // Provenance:target is the one revinclude this server carries out; Coverage includes nothing.
    expect(out).toMatch(/^Coverage\.search .*served natively$/m);
    expect(out).not.toMatch(/revinclude Provenance:target/);
    const encounter = rowOf((await report(proxy.baseUrl)).report.rows, 'Encounter.search');
    expect(encounter.roundTrips).toBeGreaterThan(1);
  });

  it('cerner-includes-refused: the 400 on includes and the searches that stand in', async () => {
    const { code, out } = await check((await proxyFor('cerner-includes-refused')).baseUrl);
    expect(code, out).toBe(0);
    expect(out).toMatch(/^Encounter\.search .*includes refused \(400\) on Encounter/m);
  });

  it('strict-unknown-params: the parameter fallbacks, in the rows', async () => {
    const { code, report: json, table } = await report((await proxyFor('strict-unknown-params')).baseUrl);
    expect(code, table).toBe(0);
    expect(rowOf(json.rows, 'SDOHGoal.search').fallbacks).toContain('param Goal:category filtered here');
    expect(rowOf(json.rows, 'Specimen.search').fallbacks).toContain('param Specimen:patient sent in another form');
    expect(rowOf(json.rows, 'Condition.search').outcome).toBe('native');
  });
});

describe('against an upstream that fails one type', () => {
  let canned: CannedUpstream;
  beforeAll(async () => {
    const embedded = new URL(plain.upstreamUrl);
    canned = await startCannedUpstream(async (request, res) => {
      if (/^\/fhir\/Immunization\b/.test(request.url)) {
        res.writeHead(500, { 'content-type': 'application/fhir+json' });
        res.end(JSON.stringify({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'exception' }] }));
        return;
      }
      // Everything else as the embedded server answers it, its links on this server's base.
      const answer = await fetch(`${embedded.origin}${request.url}`);
      res.writeHead(answer.status, { 'content-type': 'application/fhir+json' });
      res.end((await answer.text()).replaceAll(embedded.origin, canned.origin));
    });
  });
  afterAll(async () => canned?.close());

  it('says which operations cannot be served and why, and exits 1', async () => {
    const { code, out } = await check(`${canned.origin}/fhir`);
    expect(code, out).toBe(1);
    expect(out).toMatch(/^Immunization\.search .*NOT SERVABLE: 502 transient\/upstream-error: .*\(upstream: http-500\)$/m);
    expect(out).toMatch(/^Immunization\.search-post .*NOT SERVABLE: 502/m);
    expect(out).toMatch(/^Immunization\.read .*no record to read: Immunization\.search answered 502$/m);
    expect(out).toMatch(/^Condition\.search .*served natively$/m);
    expect(out).toContain('2 not servable');
    // The token went upstream as the Bearer, as the service sends it in passthrough mode.
    expect(canned.received.length).toBeGreaterThan(0);
    expect(canned.received.every((request) => request.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });
});

describe('as a command', () => {
  const cli = async (args: string[], env: Record<string, string> = {}) => {
    try {
      const { stdout, stderr } = await run('npx', ['tsx', 'scripts/check-upstream.ts', ...args], { env: { ...process.env, ...env } });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  it('--help explains what it does, the token variable, the columns and the exit codes', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(0);
    for (const text of ['CapabilityStatement', 'UPSTREAM_ACCESS_TOKEN', 'ROUND TRIPS', 'RESULT', 'Exit codes']) expect(stdout).toContain(text);
  });

  it('refuses a token argument, and a missing token or URL, with exit 2', async () => {
    const token = await cli(['--url', 'http://127.0.0.1:1/fhir', '--patient', '1', `--token=${TOKEN}`], { UPSTREAM_ACCESS_TOKEN: 'x' });
    expect(token.code).toBe(2);
    expect(token.stderr).toContain('the token is never an argument');
    expect(token.stderr).not.toContain(TOKEN);
    const noToken = await cli(['--url', 'http://127.0.0.1:1/fhir', '--patient', '1'], { UPSTREAM_ACCESS_TOKEN: '' });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('UPSTREAM_ACCESS_TOKEN is not set');
    const noUrl = await cli(['--patient', '1'], { UPSTREAM_ACCESS_TOKEN: 'x' });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('--url is required');
  });

  it('prints the table against the embedded server and exits 0, without the token', async () => {
    const { code, stdout, stderr } = await cli(['--url', plain.upstreamUrl, '--patient', patient], { UPSTREAM_ACCESS_TOKEN: TOKEN });
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(`${ROUTES.length} served natively`);
    expect(stdout + stderr).not.toContain(TOKEN);
  }, 60_000);
});

describe('against every personality of the catalog', () => {
  for (const personality of PERSONALITIES) {
    it(`${personality.name}: every operation served, natively or with a fallback`, async () => {
      const proxy = await startPersonalityProxy(personality, plain.upstreamUrl);
      try {
        const { code, report: json, table } = await report(proxy.baseUrl, personality.facadeEnv);
        expect(
          unserved(json.rows).map((row) => `${row.operation}: ${row.reason ?? row.outcome}`),
          table,
        ).toEqual([]);
        expect(code).toBe(0);
        expect(json.rows).toHaveLength(ROUTES.length);
        // Throttled answers show in the rows of the operations they slowed, every one of them.
        expect(json.rows.reduce((sum, row) => sum + row.throttled, 0)).toBe(proxy.stats.throttled);
      } finally {
        await proxy.close();
      }
    }, 120_000);
  }
});
