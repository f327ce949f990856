/**
 * The diff on a site's traffic, over real HTTP: the service recorded twice as "the old system" (two
 * folders of the same requests; their Bundle ids differ, naturally), and as the target a proxy in
 * front of the service that writes every instant `issued` in UTC — the same instant, another
 * format. The diff must report exactly that one format pattern over the right requests, the Bundle
 * ids apart as noise, and exit 1; with an accept rule pasted from the pattern, exit 0. Then the
 * HTML report is looked at in headless Chromium, when there is one.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf } from '../../kit/endpoints.ts';
import { recordRequests } from '../../kit/record.ts';
import { readRecordings, type Recording } from '../../kit/recordings.ts';
import { parseRequestsFile } from '../../kit/requests-file.ts';
import { startEmbeddedTestService, type EmbeddedTestService } from '../support/embedded-service.ts';
import { removeDirs, runKitScript, tempDir, testToken } from './kit-fixture.ts';
import { findChromium, headlessChromium, rewriteInstants, siteRequests, startRewritingProxy, type RunningProxy } from './site-fixture.ts';

const token = testToken();
const chromium = await findChromium();
const REWRITTEN = 'issued';
let service: EmbeddedTestService;
let proxy: RunningProxy;
let work: string;
let oldSystem: string;
let secondRecording: string;
let recordings: Recording[];
const dirs: string[] = [];

beforeAll(async () => {
  // The old system's zone, as in its examples (`-05:00`, `-04:00`): the target rewrites those instants to UTC.
  service = await startEmbeddedTestService({ env: { LEGACY_TIME_ZONE: 'America/New_York' } });
  const requests = parseRequestsFile(await siteRequests(service));
  [work, oldSystem, secondRecording] = await Promise.all([tempDir('site'), tempDir('site-old'), tempDir('site-second')]);
  dirs.push(work, oldSystem, secondRecording);
  await recordRequests({ from: service.url, requests, outDir: oldSystem, token });
  await recordRequests({ from: service.url, requests, outDir: secondRecording, token });
  recordings = (await readRecordings(oldSystem)).map(({ recording }) => recording);
  proxy = await startRewritingProxy(service.url, (bodyText) => rewriteInstants(bodyText, REWRITTEN).bodyText);
  // The Bundle id is compared: the second recording tells it is noise.
  await writeFile(join(work, 'rules.json'), JSON.stringify({ compareBundleId: true }));
});
afterAll(async () => {
  await proxy?.close();
  await service?.close();
  await removeDirs(dirs);
});

interface JsonReport {
  outcome: string;
  exitCode: number;
  patterns: { path: string; kind: string; requests: number; differences: number; endpoints: string[] }[];
  accepted: { path: string; kind: string; requests: number; reason: string }[];
  noise: { compared: number; unmatched: number; patterns: { path: string; requests: number; leftOut: number }[] };
  endpoints: { endpoint: string; verdict: string }[];
}

async function diff(rulesFile: string, name: string) {
  const json = join(work, `${name}.json`);
  const html = join(work, `${name}.html`);
  const run = await runKitScript(
    'diff',
    ['--recordings', oldSystem, '--target', proxy.url, '--noise', secondRecording, '--rules', rulesFile, '--json', json, '--html', html, '--concurrency', '3'],
    { LEGACY_ACCESS_TOKEN: token },
  );
  return { run, report: JSON.parse(await readFile(json, 'utf8')) as JsonReport, html };
}

/** What the proxy changes, worked out from the recordings of the old system (the same answers). */
function expectedChange() {
  const changed = recordings.filter((recording) => rewriteInstants(recording.bodyText, REWRITTEN).paths.length > 0);
  const paths = new Set(changed.flatMap((recording) => rewriteInstants(recording.bodyText, REWRITTEN).paths.map((path) => path.replace(/\[\d+\]/g, '[*]'))));
  const bundles = recordings.filter((recording) => /^\{"resourceType":"Bundle"/.test(recording.bodyText));
  return { changed, paths: [...paths], bundles, endpoints: [...new Set(changed.map(endpointOf))].sort() };
}

describe('the diff of a site', () => {
  let first: Awaited<ReturnType<typeof diff>>;
  beforeAll(async () => {
    first = await diff(join(work, 'rules.json'), 'first');
  });

  it('reports the one format difference as one pattern over the requests it is in, and exits 1', () => {
    const expected = expectedChange();
    expect(expected.paths).toHaveLength(1);
    expect(expected.changed.length).toBeGreaterThan(1);
    expect(expected.changed.length).toBeLessThan(recordings.length);
    expect(first.run.code, first.run.stderr).toBe(1);
    expect(first.report.outcome).toBe('differs');
    expect(first.report.patterns.map(({ path, kind, requests, endpoints }) => ({ path, kind, requests, endpoints }))).toEqual([
      { path: expected.paths[0], kind: 'format', requests: expected.changed.length, endpoints: expected.endpoints },
    ]);
    const differing = first.report.endpoints.filter((endpoint) => endpoint.verdict === 'differs').map((endpoint) => endpoint.endpoint);
    expect(differing.sort()).toEqual(expected.endpoints);
    expect(first.run.stdout).toContain(`format    ${expected.paths[0]}  ${expected.changed.length} requests`);
    expect(`${first.run.stdout}${first.run.stderr}`).not.toContain(token);
  });

  it('reports the Bundle ids apart, as noise from the two recordings, left out of the verdict', () => {
    const { bundles } = expectedChange();
    expect(first.report.noise.compared).toBe(recordings.length);
    expect(first.report.noise.unmatched).toBe(0);
    expect(first.report.noise.patterns.map(({ path, requests, leftOut }) => ({ path, requests, leftOut }))).toEqual([
      { path: '$.id', requests: bundles.length, leftOut: bundles.length },
    ]);
    expect(first.run.stdout).toMatch(/\nnoise: [^\n]*\n {2}value +\$\.id /);
  });

  it('exits 0 once an accept rule pasted from the pattern accepts it, and shows it as accepted', async () => {
    const [pattern] = first.report.patterns;
    const rules = join(work, 'accept.json');
    await writeFile(
      rules,
      JSON.stringify({ compareBundleId: true, accept: [{ path: pattern!.path, kind: pattern!.kind, reason: 'instants in UTC: the same instants' }] }),
    );
    const accepted = await diff(rules, 'accepted');
    expect(accepted.run.code, accepted.run.stderr).toBe(0);
    expect(accepted.report.outcome).toBe('accepted');
    expect(accepted.report.patterns).toEqual([]);
    expect(accepted.report.accepted.map(({ path, kind, requests, reason }) => ({ path, kind, requests, reason }))).toEqual([
      { path: pattern!.path, kind: 'format', requests: pattern!.requests, reason: 'instants in UTC: the same instants' },
    ]);
    expect(accepted.run.stdout).toContain('accepted by the rules:');
  });

  describe('the HTML report in a real browser', () => {
    /** Skipped where there is no Chromium (a machine with Node only), the reason in the test report; CI installs it (.ci/run). */
    const needChromium = (context: { skip: (note?: string) => never }) => {
      if (!chromium) context.skip('chromium is not installed (apt-get install -y chromium; .ci/run installs it)');
    };
    const profile = () => `--user-data-dir=${join(work, 'chromium-profile')}`;

    it('renders, the patterns first, and takes a screenshot', async (context) => {
      needChromium(context);
      const screenshot = join(work, 'report.png');
      await headlessChromium(chromium!, [profile(), `--screenshot=${screenshot}`, '--window-size=1280,1600', `file://${first.html}`]);
      const png = await readFile(screenshot);
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 1600]);
      expect((await stat(screenshot)).size).toBeGreaterThan(20_000); // text and bars, not a blank page
    });

    it('runs the filter script: the count it writes, and a filter given in the address', async (context) => {
      needChromium(context);
      const shownCount = (dom: string) => /<span id="shown-count"[^>]*>([^<]*)<\/span>/.exec(dom)?.[1];
      const dom = await headlessChromium(chromium!, [profile(), '--dump-dom', `file://${first.html}`]);
      const [pattern] = first.report.patterns;
      expect(dom.indexOf('<h2>Differences by pattern</h2>')).toBeLessThan(dom.indexOf('<h2>Noise</h2>'));
      expect(dom.includes(`<code class="pattern-path">${pattern!.path}</code>`)).toBe(true);
      const rows = (await readFile(first.html, 'utf8')).match(/<tr class="difference /g)!.length;
      expect(shownCount(dom)).toBe(`showing 1 of 1 patterns, ${rows} of ${rows} differences`);
      // The noise rows (the Bundle ids) are of kind value; the one pattern is not.
      const noiseRows = (await readFile(first.html, 'utf8')).match(/<tr class="difference standing-noise" data-kind="value"/g)!.length;
      const filtered = await headlessChromium(chromium!, [profile(), '--dump-dom', `file://${first.html}#kind=value`]);
      expect(shownCount(filtered)).toBe(`showing 0 of 1 patterns, ${noiseRows} of ${rows} differences`);
    });
  });
});
