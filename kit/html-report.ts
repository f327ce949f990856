/**
 * The diff as one self-contained HTML page (`--html FILE`): inline CSS and one inline script, no
 * external resource (html-report-assets.ts), so it can be mailed or attached to a change request
 * and opened anywhere. It leads with the outcome and the patterns (diff-patterns.ts) — counts, a
 * bar for the share of requests, endpoints, examples side by side — then the accepted patterns,
 * the noise, the verdict per endpoint, and the differences request by request. Filters by endpoint
 * and kind hide what does not match. Every text that came from a request or an answer is escaped.
 */
import type { DifferencePattern, GroupedReport, NoisePattern, PatternExample } from './diff-patterns.ts';
import { CONTENT_SECURITY_POLICY, SCRIPT, STYLE } from './html-report-assets.ts';
import { PATTERN_KINDS } from './pattern-kinds.ts';
import { differencePath } from './text-report.ts';

/** Differences shown request by request; a site's report beyond that is read in the JSON report. */
const MAX_DETAIL_ROWS = 5000;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

export function renderHtmlReport(grouped: GroupedReport): string {
  const { report, summary } = grouped;
  const verdictCounts = (['differs', 'accepted', 'identical'] as const)
    .map((verdict) => `${grouped.endpoints.filter((endpoint) => endpoint.verdict === verdict).length} ${verdict}`)
    .join(', ');
  const open = grouped.patterns.filter((pattern) => pattern.standing === 'open');
  const accepted = grouped.patterns.filter((pattern) => pattern.standing === 'accepted');
  const kinds = PATTERN_KINDS.filter((kind) => grouped.requests.some(({ differences }) => differences.some((d) => d.kind === kind)));
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(CONTENT_SECURITY_POLICY)}">`,
    '<title>Migration diff</title>',
    `<style>${STYLE}</style></head><body>`,
    '<h1>Migration diff</h1>',
    `<p class="sides">left: <code>${escapeHtml(report.left)}</code>, right: <code>${escapeHtml(report.right)}</code></p>`,
    `<p class="outcome verdict-${grouped.outcome}">Outcome: ${grouped.outcome} <span class="mono">(endpoints: ${verdictCounts})</span></p>`,
    `<p class="totals">${summary.requests} requests compared, ${summary.requestsWithDifferences} with differences, ${summary.differences} differences.</p>`,
    '<form class="filters">',
    `<label>endpoint <select id="filter-endpoint"><option value="">all endpoints</option>${grouped.endpoints.map((e) => option(e.endpoint)).join('')}</select></label>`,
    `<label>kind <select id="filter-kind"><option value="">all kinds</option>${kinds.map(option).join('')}</select></label>`,
    '<span id="shown-count"></span></form>',
    `<h2>Differences by pattern</h2>`,
    open.length === 0 ? '<p class="none">No open difference.</p>' : '',
    ...open.map((pattern) => patternBlock(pattern, summary.requests)),
    ...(accepted.length > 0 ? ['<h2>Accepted by the rules</h2>', ...accepted.map((pattern) => patternBlock(pattern, summary.requests))] : []),
    ...grouped.unusedAcceptRules.map(
      (rule) => `<p class="unused-rule">Accept rule <code>${escapeHtml(rule.path)}</code> (${escapeHtml(rule.kind)}) matched nothing.</p>`,
    ),
    ...noiseBlocks(grouped),
    '<h2>Endpoints</h2>',
    '<table class="endpoints"><thead><tr><th>verdict</th><th>endpoint</th><th>requests</th><th>open</th><th>accepted</th><th>noise</th></tr></thead><tbody>',
    ...grouped.endpoints.map(
      (e) =>
        `<tr class="verdict-${e.verdict}"><td class="verdict">${e.verdict}</td><td class="request">${escapeHtml(e.endpoint)}</td>` +
        `<td>${e.requests}</td><td>${e.open}</td><td>${e.accepted}</td><td>${e.noise}</td></tr>`,
    ),
    '</tbody></table>',
    '<h2>Request by request</h2>',
    ...requestSections(grouped),
    `<script>${SCRIPT}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}

function option(value: string): string {
  return `<option value="${escapeHtml(value)}">${escapeHtml(value)}</option>`;
}

function bar(requests: number, total: number): string {
  const share = total === 0 ? 0 : Math.round((requests / total) * 1000) / 10;
  return `<div class="bar" title="${share}% of the requests"><span style="width:${share}%"></span></div><span class="share">${share}%</span>`;
}

function patternBlock(pattern: DifferencePattern, total: number): string {
  return [
    `<div class="pattern standing-${pattern.standing}" data-kind="${pattern.kind}" data-endpoints="${escapeHtml(JSON.stringify(pattern.endpoints))}">`,
    `<div class="pattern-head"><span class="kind kind-${pattern.kind}">${pattern.kind}</span><code class="pattern-path">${escapeHtml(pattern.path)}</code>`,
    `<span class="counts"><b class="requests">${pattern.requests}</b> of ${total} requests, ${plural(pattern.differences, 'difference')}</span>${bar(pattern.requests, total)}</div>`,
    `<div class="endpoints-of">${pattern.endpoints.map(escapeHtml).join(' · ')}</div>`,
    pattern.reason !== undefined ? `<div class="reason">accepted: ${escapeHtml(pattern.reason)}</div>` : '',
    examplesTable(pattern.examples),
    '</div>',
  ].join('');
}

function noiseBlocks(grouped: GroupedReport): string[] {
  const { noise } = grouped;
  if (!noise) return [];
  return [
    '<h2>Noise</h2>',
    `<p class="noise-about">Paths that differ between two recordings of the old system (<code>${escapeHtml(noise.dir)}</code>; ` +
      `${noise.compared} requests paired, ${noise.unmatched} without a second recording): left out of the verdict. Left: the recording diffed; right: the second recording.</p>`,
    ...(noise.patterns.length === 0 ? ['<p class="none">No noise.</p>'] : noise.patterns.map((pattern) => noiseBlock(pattern, noise.compared))),
  ];
}

function noiseBlock(pattern: NoisePattern, total: number): string {
  return [
    '<div class="pattern standing-noise">',
    `<div class="pattern-head"><span class="kind">${pattern.kinds.join('/')}</span><code class="pattern-path">${escapeHtml(pattern.path)}</code>`,
    `<span class="counts"><b class="requests">${pattern.requests}</b> of ${total} requests; ${plural(pattern.leftOut, 'difference')} with the target left out</span>${bar(pattern.requests, total)}</div>`,
    `<div class="endpoints-of">${pattern.endpoints.map(escapeHtml).join(' · ')}</div>`,
    examplesTable(pattern.examples),
    '</div>',
  ].join('');
}

function examplesTable(examples: PatternExample[]): string {
  return (
    '<table class="examples"><thead><tr><th>example</th><th>left</th><th>right</th></tr></thead><tbody>' +
    examples
      .map(
        (example) =>
          `<tr><td class="request">${escapeHtml(example.request)}<br>${escapeHtml(example.path)}</td>` +
          `<td class="left">${valueCell(example.left)}</td><td class="right">${valueCell(example.right)}</td></tr>`,
      )
      .join('') +
    '</tbody></table>'
  );
}

function requestSections(grouped: GroupedReport): string[] {
  const sections: string[] = [];
  let rows = 0;
  let notShown = 0;
  grouped.requests.forEach(({ comparison, differences }, index) => {
    if (differences.length === 0) return;
    if (rows >= MAX_DETAIL_ROWS) {
      notShown += differences.length;
      return;
    }
    rows += differences.length;
    const endpoints = escapeHtml(JSON.stringify([comparison.endpoint]));
    sections.push(
      `<section class="request" id="request-${index + 1}"><h3>${escapeHtml(comparison.request)}</h3>`,
      `<p class="statuses">status ${comparison.leftStatus} → ${comparison.rightStatus}</p>`,
      '<table class="differences"><thead><tr><th>JSON path</th><th>kind</th><th>standing</th><th>left</th><th>right</th></tr></thead><tbody>',
      ...differences.map(
        ({ difference, kind, standing }) =>
          `<tr class="difference standing-${standing}" data-kind="${kind}" data-endpoints="${endpoints}"><td class="path">${escapeHtml(differencePath(difference))}</td>` +
          `<td class="kind">${kind}</td><td class="standing">${standing}</td>` +
          `<td class="left">${valueCell(difference.left)}</td><td class="right">${valueCell(difference.right)}</td></tr>`,
      ),
      '</tbody></table></section>',
    );
  });
  if (notShown > 0) sections.push(`<p class="cut">… ${notShown} more differences: the JSON report (--json FILE) lists every one.</p>`);
  return sections;
}

function valueCell(value: string | undefined): string {
  return value === undefined ? '<span class="absent">(absent)</span>' : `<pre>${escapeHtml(value)}</pre>`;
}
