/**
 * The diff as JSON (`--json FILE`), for CI: the same report as the console's and the HTML page's,
 * as data. A pipeline reads `outcome` (or the exit code), and `patterns` to see what changed:
 *
 * ```json
 * { "format": "migration-diff/1", "outcome": "differs", "exitCode": 1,
 *   "patterns": [{ "path": "$.entry[*].resource.issued", "kind": "format", "requests": 120,
 *                  "differences": 840, "endpoints": ["GET /Observation"], "examples": […] }],
 *   "accepted": [{ …the same…, "reason": "…" }], "noise": { "patterns": […] },
 *   "endpoints": [{ "endpoint": "GET /Observation", "verdict": "differs", … }], "requests": […] }
 * ```
 * `requests` lists the requests with differences, each difference with its concrete path, pattern,
 * kind and standing, without values (the examples have values; the HTML page has them all).
 */
import type { DifferencePattern, GroupedReport } from './diff-patterns.ts';
import { EXIT_DIFFERENCES, EXIT_OK } from './cli.ts';

export const JSON_REPORT_FORMAT = 'migration-diff/1';

export function exitCodeOf(grouped: GroupedReport): number {
  return grouped.outcome === 'differs' ? EXIT_DIFFERENCES : EXIT_OK;
}

export function jsonReport(grouped: GroupedReport): unknown {
  const pattern = ({ path, kind, requests, differences, endpoints, examples, reason }: DifferencePattern) => ({
    path,
    kind,
    requests,
    differences,
    endpoints,
    ...(reason !== undefined ? { reason } : {}),
    examples,
  });
  return {
    format: JSON_REPORT_FORMAT,
    left: grouped.report.left,
    right: grouped.report.right,
    outcome: grouped.outcome,
    exitCode: exitCodeOf(grouped),
    summary: grouped.summary,
    patterns: grouped.patterns.filter((p) => p.standing === 'open').map(pattern),
    accepted: grouped.patterns.filter((p) => p.standing === 'accepted').map(pattern),
    unusedAcceptRules: grouped.unusedAcceptRules.map(({ path, kind, reason }) => ({ path, kind, reason })),
    noise: grouped.noise ?? null,
    endpoints: grouped.endpoints,
    requests: grouped.requests
      .filter(({ differences }) => differences.length > 0)
      .map(({ comparison, differences }) => ({
        request: comparison.request,
        endpoint: comparison.endpoint,
        ...(comparison.file !== undefined ? { file: comparison.file } : {}),
        leftStatus: comparison.leftStatus,
        rightStatus: comparison.rightStatus,
        differences: differences.map(({ difference, pattern, kind, standing }) => ({ path: difference.path, pattern, kind, standing })),
      })),
  };
}

/** The file's text: indented, so a person can read it and a CI log can show it. */
export function jsonReportText(grouped: GroupedReport): string {
  return `${JSON.stringify(jsonReport(grouped), null, 2)}\n`;
}
