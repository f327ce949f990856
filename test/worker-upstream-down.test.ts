/**
 * The Worker with its upstream down, in a workerd process of its own (Miniflare) rather than in the
 * Workers pool. The pool runs workerd verbose, and verbose workerd reports every failed subrequest
 * on its stderr (the refused connect() with a native stack trace) even when the Worker handles the
 * failure; the pool passes that stream straight to the test output. Owning the process, this test
 * reads both of its streams and asserts on them, next to the 502 the caller gets.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { buildWorker } from '../scripts/worker-size.ts';

/** The deployed Worker's compatibility date, so this workerd behaves as the deployed one. */
const COMPATIBILITY_DATE = /^compatibility_date = "(.+)"$/m.exec(readFileSync(new URL('../wrangler.toml', import.meta.url), 'utf8'))?.[1];

let outdir: string;
let workerd: Miniflare;
const output = { stdout: '', stderr: '' };

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'worker-upstream-down-'));
  const [script] = buildWorker(outdir);
  workerd = new Miniflare({
    modules: true,
    scriptPath: join(outdir, script ?? 'worker.js'),
    modulesRoot: outdir,
    // As the pool runs it: the runtime's report of the refused connection shows the 502 is that refusal.
    verbose: true,
    compatibilityDate: COMPATIBILITY_DATE,
    // Nothing listens on the loopback's port 9 (discard): every connection is refused.
    bindings: { UPSTREAM_URL: 'http://127.0.0.1:9/fhir', UPSTREAM_TIMEOUT_MS: '5000' },
    handleRuntimeStdio(stdout, stderr) {
      stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
      stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
    },
  });
  await workerd.ready;
});

afterAll(async () => {
  await workerd?.dispose();
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

const linesOf = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

it('answers 502 with an OperationOutcome, logs why, and workerd reports the refused connection', async () => {
  expect(COMPATIBILITY_DATE).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  const response = await workerd.dispatchFetch('http://facade.test/api/DiagnosticReport?patient=1');
  expect(response.status).toBe(502);
  expect(await response.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'transient' }] });

  // The Worker's log (its console, workerd's stdout): the failure's kind, then the request and audit lines.
  await vi.waitFor(() => expect(output.stdout).toContain('"log":"audit"'));
  const logged = linesOf(output.stdout).map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(logged).toMatchObject([
    { level: 'error', message: 'request failed', route: 'DiagnosticReport.search', code: 'upstream-error', cause: 'network' },
    { message: 'request', status: 502 },
    { log: 'audit', status: 502, outcome: 'failed' },
  ]);

  // workerd's own report of each refused connection: the exception and its native stack, nothing else.
  await vi.waitFor(() => expect(output.stderr).toContain('connect(): Connection refused'));
  const unexpected = linesOf(output.stderr).filter((line) => !/Connection refused|Network connection lost|^stack: /.test(line));
  expect(unexpected).toEqual([]);
});
