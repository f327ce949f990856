/**
 * The diff's console report. It leads with what a migration team decides on — the outcome, then
 * the patterns (diff-patterns.ts) with their counts, endpoints and a few examples, the accepted
 * ones with their reasons, the noise apart, the verdict per endpoint — and ends with the open
 * differences request by request, `<method> <path?query> <json path>: <left> → <right>`, cut
 * after `MAX_DETAIL_LINES` (the HTML and JSON reports hold them all).
 */
import type { DifferencePattern, GroupedReport, PatternExample } from './diff-patterns.ts';
import type { Difference } from './json-diff.ts';
import { escapeControls } from './recordings.ts';

const MAX_SHOWN = 80;
const MAX_DETAIL_LINES = 100;

export function abbreviate(text: string, max = MAX_SHOWN): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `"final" → "amended"`, `(absent)` for the side that lacks the value. */
export function differenceValues(difference: Pick<Difference, 'left' | 'right'>, max = MAX_SHOWN): string {
  const left = difference.left === undefined ? '(absent)' : abbreviate(difference.left, max);
  const right = difference.right === undefined ? '(absent)' : abbreviate(difference.right, max);
  return `${left} → ${right}`;
}

export function differencePath(difference: Pick<Difference, 'path' | 'kind'>): string {
  return difference.kind === 'key-order' ? `${difference.path} (key order)` : difference.path;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

export function formatTextReport(grouped: GroupedReport): string {
  const { report, summary } = grouped;
  const lines = [
    `compared ${summary.requests} requests (${report.left} → ${report.right}): ` +
      `${summary.requestsWithDifferences} with differences, ${summary.differences} differences`,
    `outcome: ${grouped.outcome} (${['differs', 'accepted', 'identical']
      .map((verdict) => `${grouped.endpoints.filter((endpoint) => endpoint.verdict === verdict).length} ${verdict}`)
      .join(', ')}; endpoints below)`,
  ];
  const open = grouped.patterns.filter((pattern) => pattern.standing === 'open');
  const accepted = grouped.patterns.filter((pattern) => pattern.standing === 'accepted');
  lines.push('', open.length > 0 ? 'differences by pattern (most requests first):' : 'no open difference.');
  for (const pattern of open) lines.push(...patternLines(pattern));
  if (accepted.length > 0) lines.push('', 'accepted by the rules:');
  for (const pattern of accepted) lines.push(...patternLines(pattern));
  for (const rule of grouped.unusedAcceptRules) lines.push(`  (accept rule ${rule.path} ${rule.kind} matched nothing)`);
  if (grouped.noise) {
    const { noise } = grouped;
    lines.push(
      '',
      `noise: paths that differ between two recordings of the old system (${noise.dir}; ${noise.compared} requests paired, ${noise.unmatched} without a second recording); left out of the verdict:`,
    );
    if (noise.patterns.length === 0) lines.push('  none');
    for (const pattern of noise.patterns) {
      lines.push(
        `  ${pattern.kinds.join('/').padEnd(9)} ${pattern.path}  ${plural(pattern.requests, 'request')}; ${pattern.leftOut} against the target left out  ${pattern.endpoints.join(', ')}`,
      );
      lines.push(...pattern.examples.map(exampleLine));
    }
  }
  lines.push('', 'endpoints:');
  const width = Math.max(0, ...grouped.endpoints.map((endpoint) => endpoint.endpoint.length));
  for (const endpoint of grouped.endpoints) {
    lines.push(
      `  ${endpoint.verdict.padEnd(9)} ${endpoint.endpoint.padEnd(width)}  ${plural(endpoint.requests, 'request')}; differences: ${endpoint.open} open, ${endpoint.accepted} accepted, ${endpoint.noise} noise`,
    );
  }
  const detail = grouped.requests.flatMap(({ comparison, differences }) =>
    differences
      .filter((classified) => classified.standing === 'open')
      .map(({ difference }) => `${comparison.request} ${differencePath(difference)}: ${differenceValues(difference)}`),
  );
  if (detail.length > 0) {
    lines.push('', 'open differences, request by request:', ...detail.slice(0, MAX_DETAIL_LINES));
    if (detail.length > MAX_DETAIL_LINES) lines.push(`… ${detail.length - MAX_DETAIL_LINES} more (--html FILE or --json FILE has every one)`);
  }
  // Keys, values and requests come from the answers and the traffic: a control character in one must not make or hide a line.
  return `${lines.map(escapeControls).join('\n')}\n`;
}

function patternLines(pattern: DifferencePattern): string[] {
  const reason = pattern.reason !== undefined ? `  — ${pattern.reason}` : '';
  return [
    `  ${pattern.kind.padEnd(9)} ${pattern.path}  ${plural(pattern.requests, 'request')}, ${plural(pattern.differences, 'difference')}  ${pattern.endpoints.join(', ')}${reason}`,
    ...pattern.examples.map(exampleLine),
  ];
}

function exampleLine(example: PatternExample): string {
  return `      e.g. ${example.request} ${example.path}: ${differenceValues(example)}`;
}
