/**
 * The diff as one self-contained HTML page (`--html FILE`): inline CSS, no script, no external
 * resource, so it can be mailed or attached to a change request and opened anywhere. A summary
 * table (one row per request), then each request's differences side by side. Every text that came
 * from a request or an answer is escaped.
 */
import { summarize, type DiffReport } from './replay-diff.ts';
import { differencePath } from './text-report.ts';

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 2rem; color: #1b1b1b; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.05rem; font-family: ui-monospace, monospace; margin-top: 2rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { border: 1px solid #ccc; padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.request, td.path { font-family: ui-monospace, monospace; word-break: break-all; }
td.left, td.right { width: 38%; }
pre { margin: 0; white-space: pre-wrap; word-break: break-all; font: 12px/1.35 ui-monospace, monospace; }
tr.differs td.count { background: #fde2e1; font-weight: bold; } tr.same td.count { background: #e3f5e1; }
td.left pre { color: #8a1c14; } td.right pre { color: #135e1c; } .absent { color: #777; font-style: italic; }
`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

export function renderHtmlReport(report: DiffReport): string {
  const summary = summarize(report);
  const rows = report.comparisons.map((comparison, index) => {
    const count = comparison.differences.length;
    const request = count > 0 ? `<a href="#request-${index + 1}">${escapeHtml(comparison.request)}</a>` : escapeHtml(comparison.request);
    return `<tr class="${count > 0 ? 'differs' : 'same'}"><td class="request">${request}</td>` +
      `<td class="status-left">${comparison.leftStatus}</td><td class="status-right">${comparison.rightStatus}</td>` +
      `<td class="count">${count}</td></tr>`;
  });
  const sections = report.comparisons.flatMap((comparison, index) => {
    if (comparison.differences.length === 0) return [];
    const differenceRows = comparison.differences.map((difference) =>
      `<tr><td class="path">${escapeHtml(differencePath(difference))}</td>` +
      `<td class="left">${valueCell(difference.left)}</td><td class="right">${valueCell(difference.right)}</td></tr>`);
    return [
      `<section id="request-${index + 1}"><h2>${escapeHtml(comparison.request)}</h2>`,
      '<table class="differences"><thead><tr><th>JSON path</th><th>left</th><th>right</th></tr></thead><tbody>',
      ...differenceRows,
      '</tbody></table></section>',
    ];
  });
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<title>Migration diff</title>',
    `<style>${STYLE}</style></head><body>`,
    '<h1>Migration diff</h1>',
    `<p class="sides">left: <code>${escapeHtml(report.left)}</code>, right: <code>${escapeHtml(report.right)}</code></p>`,
    `<p class="totals">${summary.requests} requests compared, ${summary.requestsWithDifferences} with differences, ` +
      `${summary.differences} differences.</p>`,
    '<table class="summary"><thead><tr><th>request</th><th>status left</th><th>status right</th><th>differences</th></tr></thead><tbody>',
    ...rows,
    '</tbody></table>',
    ...sections,
    '</body></html>',
    '',
  ].join('\n');
}

function valueCell(value: string | undefined): string {
  return value === undefined ? '<span class="absent">(absent)</span>' : `<pre>${escapeHtml(value)}</pre>`;
}
