/**
 * The HTML report: one self-contained page (one inline script allowed by its hash, no external
 * resource), the patterns first, each difference side by side under its request, read back through
 * a DOM (scripts not run here; html-browser.test.ts runs them in Chromium).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Window } from 'happy-dom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupReport, type GroupedReport } from '../../kit/diff-patterns.ts';
import { DEFAULT_RULES } from '../../kit/diff-rules.ts';
import { renderHtmlReport } from '../../kit/html-report.ts';
import { recordRequests } from '../../kit/record.ts';
import { diffRecordings } from '../../kit/replay-diff.ts';
import { parseRequestsFile } from '../../kit/requests-file.ts';
import { startEmbeddedTestService, type EmbeddedTestService } from '../support/embedded-service.ts';
import { copyDir, injectDifferences, kitRequests, removeDirs, runKitScript, tempDir, testToken } from './kit-fixture.ts';

const token = testToken();
let service: EmbeddedTestService;
let grouped: GroupedReport;
let expected: Map<string, string[]>;
let html: string;
const dirs: string[] = [];
const windows: Window[] = [];

beforeAll(async () => {
  service = await startEmbeddedTestService();
  const recorded = await tempDir('html');
  dirs.push(recorded);
  await recordRequests({ from: service.url, requests: parseRequestsFile((await kitRequests(service)).text), outDir: recorded, token });
  const injected = await copyDir(recorded, 'html-injected');
  dirs.push(injected);
  expected = await injectDifferences(injected);
  grouped = groupReport(await diffRecordings({ recordingsDir: injected, target: service.url, token, rules: DEFAULT_RULES }));
  const htmlFile = join(recorded, 'report.html');
  const run = await runKitScript('diff', ['--recordings', injected, '--target', service.url, '--html', htmlFile], { LEGACY_ACCESS_TOKEN: token });
  expect(run.code, run.stderr).toBe(1);
  html = await readFile(htmlFile, 'utf8');
});
afterAll(async () => {
  await Promise.all(windows.map((window) => window.happyDOM.close()));
  await service?.close();
  await removeDirs(dirs);
});

function load(page: string) {
  const window = new Window();
  windows.push(window);
  window.document.write(page);
  return window.document;
}

const texts = (elements: Iterable<{ textContent: string | null }>) => [...elements].map((element) => (element.textContent ?? '').trim());
/** An independent reading of "generalized": every bracket of a concrete path written `[*]`. */
const generalized = (path: string) => path.replace(/\[[^\]]*\]/g, '[*]');

describe('the HTML report', () => {
  it('is one page: one inline script, allowed by its hash, and nothing loaded from elsewhere', () => {
    const document = load(html);
    expect(document.querySelectorAll('link, img, iframe, object, embed').length).toBe(0);
    expect(document.querySelectorAll('[src]').length).toBe(0);
    for (const anchor of document.querySelectorAll('[href]')) expect(anchor.getAttribute('href')).toMatch(/^#/);
    expect(html).not.toMatch(/(src|href|action)\s*=\s*["']?\s*(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(/i);
    const scripts = [...document.querySelectorAll('script')];
    expect(scripts).toHaveLength(1);
    const policy = document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '';
    expect(policy).toContain("default-src 'none'");
    const hash = createHash('sha256')
      .update(scripts[0]!.textContent ?? '')
      .digest('base64');
    expect(policy).toContain(`script-src 'sha256-${hash}'`);
    expect(html.includes(token)).toBe(false);
  });

  it('leads with the outcome and the patterns: kind, generalized path, requests, endpoints, examples side by side', () => {
    const document = load(html);
    expect(document.querySelector('p.outcome')?.textContent).toContain('Outcome: differs');
    expect(document.querySelector('p.totals')?.textContent).toContain('4 with differences, 4 differences');
    expect(texts(document.querySelectorAll('h2'))[0]).toBe('Differences by pattern');
    const blocks = [...document.querySelectorAll('.pattern[data-kind]')];
    expect(blocks.map((block) => block.querySelector('.pattern-path')?.textContent).sort()).toEqual([...expected.values()].flat().map(generalized).sort());
    blocks.forEach((block, index) => {
      const pattern = grouped.patterns[index]!;
      expect([block.getAttribute('data-kind'), block.querySelector('.pattern-path')?.textContent, block.querySelector('.requests')?.textContent]).toEqual([
        pattern.kind,
        pattern.path,
        String(pattern.requests),
      ]);
      expect(JSON.parse(block.getAttribute('data-endpoints')!)).toEqual(pattern.endpoints);
      const example = block.querySelector('table.examples tbody tr')!;
      expect(example.querySelector('td.left')?.textContent).toBe(pattern.examples[0]!.left ?? '(absent)');
      expect(example.querySelector('td.right')?.textContent).toBe(pattern.examples[0]!.right ?? '(absent)');
    });
    expect(blocks.find((block) => block.querySelector('.pattern-path')?.textContent === 'status')?.getAttribute('data-kind')).toBe('value');
    const number = blocks.find((block) => block.querySelector('.pattern-path')?.textContent?.endsWith('valueQuantity.value'));
    expect(number?.getAttribute('data-kind')).toBe('format'); // 174.20 and 174.2: the same number written differently
    const filterEndpoints = texts(document.querySelectorAll('#filter-endpoint option')).slice(1);
    expect(filterEndpoints.sort()).toEqual(grouped.endpoints.map((endpoint) => endpoint.endpoint).sort());
  });

  it('gives each endpoint its verdict', () => {
    const document = load(html);
    const rows = [...document.querySelectorAll('table.endpoints tbody tr')];
    expect(rows.map((row) => texts(row.querySelectorAll('td')).slice(0, 2))).toEqual(grouped.endpoints.map((e) => [e.verdict, e.endpoint]));
    const differing = new Set(grouped.requests.filter(({ differences }) => differences.length > 0).map(({ comparison }) => comparison.endpoint));
    expect(rows.filter((row) => row.querySelector('td.verdict')?.textContent === 'differs').length).toBe(differing.size);
  });

  it('shows each difference side by side under its request', () => {
    const document = load(html);
    const sections = [...document.querySelectorAll('section.request')];
    expect(texts(sections.map((section) => section.querySelector('h3')!)).sort()).toEqual([...expected.keys()].sort());
    for (const section of sections) {
      const request = section.querySelector('h3')!.textContent!;
      const { differences } = grouped.requests.find(({ comparison }) => comparison.request === request)!;
      const rows = [...section.querySelectorAll('table.differences tbody tr')];
      expect(rows.map((row) => row.querySelector('td.path')?.textContent)).toEqual(expected.get(request));
      rows.forEach((row, index) => {
        const { difference, kind, standing } = differences[index]!;
        expect(texts(row.querySelectorAll('td.kind, td.standing'))).toEqual([kind, standing]);
        expect(row.querySelector('td.left')?.textContent).toBe(difference.left ?? '(absent)');
        expect(row.querySelector('td.right')?.textContent).toBe(difference.right ?? '(absent)');
      });
    }
    const status = [...document.querySelectorAll('tr.difference')].find((row) => row.querySelector('td.path')?.textContent === 'status')!;
    expect(texts(status.querySelectorAll('td.left, td.right'))).toEqual(['500', '200']);
  });

  it('escapes everything that came from a request or an answer', () => {
    const hostile = '<script>alert(1)</script><img src=x onerror=alert(2)>&amp;"\'';
    const page = renderHtmlReport(
      groupReport({
        left: hostile,
        right: 'http://target',
        comparisons: [
          {
            request: `GET /x?q=${hostile}`,
            endpoint: `GET /x${hostile}`,
            leftStatus: 200,
            rightStatus: 200,
            differences: [{ path: `$['${hostile}']`, segments: [{ key: hostile }], kind: 'changed', left: hostile, right: JSON.stringify(hostile) }],
          },
        ],
      }),
    );
    const document = load(page);
    expect(document.querySelectorAll('script').length).toBe(1);
    expect(document.querySelectorAll('img, [onerror]').length).toBe(0);
    expect(document.querySelector('tr.difference td.left')?.textContent).toBe(hostile);
    expect(document.querySelector('section.request h3')?.textContent).toBe(`GET /x?q=${hostile}`);
    expect(document.querySelector('#filter-endpoint option:last-child')?.textContent).toBe(`GET /x${hostile}`);
  });
});
