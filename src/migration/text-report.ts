/**
 * The diff's console report: a summary line, then one line per difference,
 * `<method> <path?query> <json path>: <left> → <right>`, values abbreviated.
 */
import type { Difference } from './json-diff.ts';
import { escapeControls } from './recordings.ts';
import { summarize, type DiffReport } from './replay-diff.ts';

const MAX_SHOWN = 80;

export function abbreviate(text: string, max = MAX_SHOWN): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `"final" → "amended"`, `(absent)` for the side that lacks the value. */
export function differenceValues(difference: Difference, max = MAX_SHOWN): string {
  const left = difference.left === undefined ? '(absent)' : abbreviate(difference.left, max);
  const right = difference.right === undefined ? '(absent)' : abbreviate(difference.right, max);
  return `${left} → ${right}`;
}

export function differencePath(difference: Difference): string {
  return difference.kind === 'key-order' ? `${difference.path} (key order)` : difference.path;
}

export function formatTextReport(report: DiffReport): string {
  const summary = summarize(report);
  const lines = [
    `compared ${summary.requests} requests (${report.left} → ${report.right}): ` +
      `${summary.requestsWithDifferences} with differences, ${summary.differences} differences`,
  ];
  for (const comparison of report.comparisons) {
    for (const difference of comparison.differences) {
      // Keys and values come from the answers: a control character in one must not make or hide a line.
      lines.push(`${comparison.request} ${escapeControls(`${differencePath(difference)}: ${differenceValues(difference)}`)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
