/**
 * The HTML report: one self-contained page (no script, no external resource), its summary table
 * and each difference side by side, read back through a DOM.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Window } from 'happy-dom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RULES } from '../../src/migration/diff-rules.ts';
import { renderHtmlReport } from '../../src/migration/html-report.ts';
import { recordRequests } from '../../src/migration/record.ts';
import { diffRecordings, type DiffReport } from '../../src/migration/replay-diff.ts';
import { parseRequestsFile } from '../../src/migration/requests-file.ts';
import { startEmbeddedTestService, type EmbeddedTestService } from '../support/embedded-service.ts';
import { copyDir, injectDifferences, kitRequests, removeDirs, runKitScript, tempDir, testToken } from './kit-fixture.ts';

const token = testToken();
let service: EmbeddedTestService;
let report: DiffReport;
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
  report = await diffRecordings({ recordingsDir: injected, target: service.url, token, rules: DEFAULT_RULES });
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

describe('the HTML report', () => {
  it('is one page with no script and nothing loaded from elsewhere', () => {
    const document = load(html);
    expect(document.querySelectorAll('script, link, img, iframe, object, embed').length).toBe(0);
    expect(document.querySelectorAll('[src]').length).toBe(0);
    for (const anchor of document.querySelectorAll('[href]')) expect(anchor.getAttribute('href')).toMatch(/^#request-\d+$/);
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?\s*(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(/i);
    expect(html.includes(token)).toBe(false);
  });

  it('has a summary row per request: request, both statuses and the number of differences', () => {
    const document = load(html);
    const rows = [...document.querySelectorAll('table.summary tbody tr')];
    expect(rows).toHaveLength(report.comparisons.length);
    rows.forEach((row, index) => {
      const comparison = report.comparisons[index]!;
      expect(texts(row.querySelectorAll('td'))).toEqual([
        comparison.request, String(comparison.leftStatus), String(comparison.rightStatus), String(comparison.differences.length),
      ]);
    });
    const differing = rows.filter((row) => row.querySelector('td.count')?.textContent !== '0').map((row) => row.querySelector('td.request')?.textContent);
    expect(differing.sort()).toEqual([...expected.keys()].sort());
    expect(document.querySelector('p.totals')?.textContent).toContain('4 with differences, 4 differences');
  });

  it('shows each difference side by side under its request', () => {
    const document = load(html);
    const sections = [...document.querySelectorAll('section')];
    expect(texts(sections.map((section) => section.querySelector('h2')!)).sort()).toEqual([...expected.keys()].sort());
    for (const section of sections) {
      const request = section.querySelector('h2')!.textContent!;
      const comparison = report.comparisons.find((c) => c.request === request)!;
      const rows = [...section.querySelectorAll('table.differences tbody tr')];
      expect(rows.map((row) => row.querySelector('td.path')?.textContent)).toEqual(expected.get(request));
      rows.forEach((row, index) => {
        const difference = comparison.differences[index]!;
        expect(row.querySelector('td.left')?.textContent).toBe(difference.left ?? '(absent)');
        expect(row.querySelector('td.right')?.textContent).toBe(difference.right ?? '(absent)');
      });
    }
    const status = sections.find((section) => section.querySelector('td.path')?.textContent === 'status')!;
    expect(texts(status.querySelectorAll('td'))).toEqual(['status', '500', '200']);
    const number = [...document.querySelectorAll('td.path')].find((cell) => cell.textContent?.endsWith('valueQuantity.value'))!.parentElement!;
    const [left, right] = texts(number.querySelectorAll('td.left, td.right'));
    expect(left).toBe(`${right}${right!.includes('.') ? '0' : '.0'}`);
  });

  it('escapes everything that came from a request or an answer', () => {
    const hostile = '<script>alert(1)</script><img src=x onerror=alert(2)>&amp;"\'';
    const page = renderHtmlReport({
      left: hostile,
      right: 'http://target',
      comparisons: [{ request: `GET /x?q=${hostile}`, leftStatus: 200, rightStatus: 200, differences: [{ path: `$['${hostile}']`, kind: 'changed', left: hostile, right: JSON.stringify(hostile) }] }],
    });
    const document = load(page);
    expect(document.querySelectorAll('script, img, [onerror]').length).toBe(0);
    expect(document.querySelector('td.left')?.textContent).toBe(hostile);
    expect(document.querySelector('td.request')?.textContent).toBe(`GET /x?q=${hostile}`);
  });
});
