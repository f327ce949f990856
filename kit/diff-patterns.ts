/**
 * The diff grouped for a site's traffic: between json-diff.ts (one difference at a concrete path,
 * in one answer) and the reports (text-report.ts, html-report.ts, json-report.ts).
 *
 * A difference's **pattern** is its path with every array index and Bundle entry label written
 * `[*]` (`$.entry[*].resource.effectiveDateTime`, in the rule syntax of json-path.ts so it can be
 * pasted into a rule), and its kind (pattern-kinds.ts). One formatting choice of the new system is
 * then one line with the number of requests it touches, the endpoints, and a few examples, however
 * many thousand answers it is in. Each difference also has a **standing**:
 *
 * - `noise` when its pattern's path differs, on the same endpoint, between two recordings of the old
 *   system (`--noise`): on that endpoint only, so that a status or a field that is unstable on one
 *   endpoint of the old system does not hide a real difference of another;
 * - `accepted` when an accept rule of the rules file names it (the first that does gives the reason);
 * - `open` otherwise: what clients would notice.
 *
 * An endpoint's **verdict** is `differs` when it has an open difference, else `accepted` when it has
 * an accepted one, else `identical` (noise never counts); the outcome is the worst verdict.
 */
import type { AcceptRule } from './diff-rules.ts';
import type { Difference } from './json-diff.ts';
import { patternOf, ruleMatches } from './json-path.ts';
import { patternKind, type PatternKind } from './pattern-kinds.ts';
import type { DiffReport, RequestComparison } from './replay-diff.ts';

export interface DiffSummary {
  requests: number;
  requestsWithDifferences: number;
  differences: number;
}

export function summarize(report: DiffReport): DiffSummary {
  return {
    requests: report.comparisons.length,
    requestsWithDifferences: report.comparisons.filter((comparison) => comparison.differences.length > 0).length,
    differences: report.comparisons.reduce((sum, comparison) => sum + comparison.differences.length, 0),
  };
}

export type Standing = 'open' | 'accepted' | 'noise';
export type Verdict = 'identical' | 'accepted' | 'differs';

/** Examples per pattern: enough to see what it is, few enough to read. */
export const MAX_EXAMPLES = 3;

export interface PatternExample {
  request: string;
  /** The concrete path (with the entry's label, the index). */
  path: string;
  left?: string;
  right?: string;
}

export interface DifferencePattern {
  path: string;
  kind: PatternKind;
  standing: Standing;
  /** The accept rule's reason, for `accepted`. */
  reason?: string;
  /** Requests with at least one difference of this pattern. */
  requests: number;
  differences: number;
  /** Sorted. */
  endpoints: string[];
  /** At most `MAX_EXAMPLES`, from different requests, in the order of the requests. */
  examples: PatternExample[];
}

/** A path that differs between the two recordings of the old system, on `endpoints`. */
export interface NoisePattern {
  path: string;
  /** The kinds seen between the two recordings. */
  kinds: PatternKind[];
  /** Requests whose two recordings differ there. */
  requests: number;
  endpoints: string[];
  /** Left: the recording diffed; right: the second recording. */
  examples: PatternExample[];
  /** Differences against the target left out of the verdict because of this path (on those endpoints). */
  leftOut: number;
}

export interface EndpointVerdict {
  endpoint: string;
  verdict: Verdict;
  requests: number;
  /** Differences by standing. */
  open: number;
  accepted: number;
  noise: number;
}

export interface ClassifiedDifference {
  difference: Difference;
  pattern: string;
  kind: PatternKind;
  standing: Standing;
}

export interface GroupedReport {
  report: DiffReport;
  summary: DiffSummary;
  /** Open patterns, then accepted ones, each by requests (most first). */
  patterns: DifferencePattern[];
  noise?: { dir: string; compared: number; unmatched: number; patterns: NoisePattern[] };
  endpoints: EndpointVerdict[];
  outcome: Verdict;
  /** Accept rules that matched no difference (stale, or mistyped). */
  unusedAcceptRules: AcceptRule[];
  /** The report's comparisons, each difference with its pattern and standing (the detail). */
  requests: { comparison: RequestComparison; differences: ClassifiedDifference[] }[];
}

/** The pattern's path: `status` and `headers.<name>` stay as they are. */
export function patternPath(difference: Difference): string {
  return difference.segments ? patternOf(difference.segments) : difference.path;
}

export function groupReport(report: DiffReport, accept: readonly AcceptRule[] = []): GroupedReport {
  const noise = report.noise ? groupNoise(report.noise.comparisons) : undefined;
  const used = new Set<AcceptRule>();
  const patterns = new Map<string, DifferencePattern & { lastComparison?: RequestComparison }>();
  const endpoints = new Map<string, EndpointVerdict>();
  const requests = report.comparisons.map((comparison) => {
    const endpoint = endpoints.get(comparison.endpoint) ?? { endpoint: comparison.endpoint, verdict: 'identical', requests: 0, open: 0, accepted: 0, noise: 0 };
    endpoints.set(comparison.endpoint, endpoint);
    endpoint.requests += 1;
    const differences = comparison.differences.map((difference): ClassifiedDifference => {
      const pattern = patternPath(difference);
      const kind = patternKind(difference);
      const noisePattern = noise?.onEndpoint.has(noiseKey(comparison.endpoint, pattern)) ? noise.byPath.get(pattern) : undefined;
      const rule = noisePattern ? undefined : accept.find((candidate) => accepts(candidate, difference, kind));
      const standing: Standing = noisePattern ? 'noise' : rule ? 'accepted' : 'open';
      endpoint[standing] += 1;
      if (noisePattern) noisePattern.leftOut += 1;
      else {
        if (rule) used.add(rule);
        tally(patterns, { pattern, kind, standing, reason: rule?.reason }, comparison, difference);
      }
      return { difference, pattern, kind, standing };
    });
    return { comparison, differences };
  });
  for (const endpoint of endpoints.values()) endpoint.verdict = endpoint.open > 0 ? 'differs' : endpoint.accepted > 0 ? 'accepted' : 'identical';
  const verdictOrder: Verdict[] = ['differs', 'accepted', 'identical'];
  const sortedEndpoints = [...endpoints.values()].sort(
    (a, b) => verdictOrder.indexOf(a.verdict) - verdictOrder.indexOf(b.verdict) || compareText(a.endpoint, b.endpoint),
  );
  const standingOrder: Standing[] = ['open', 'accepted'];
  return {
    report,
    summary: summarize(report),
    patterns: [...patterns.values()]
      .map(({ lastComparison: _, ...pattern }) => pattern)
      .sort((a, b) => standingOrder.indexOf(a.standing) - standingOrder.indexOf(b.standing) || byWeight(a, b)),
    ...(report.noise && noise
      ? {
          noise: {
            dir: report.noise.dir,
            compared: report.noise.comparisons.length,
            unmatched: report.noise.unmatched,
            patterns: [...noise.byPath.values()].sort(byWeight),
          },
        }
      : {}),
    endpoints: sortedEndpoints,
    outcome: verdictOrder.find((verdict) => sortedEndpoints.some((endpoint) => endpoint.verdict === verdict)) ?? 'identical',
    unusedAcceptRules: accept.filter((rule) => !used.has(rule)),
    requests,
  };
}

/** Whether the rule names this difference: same kind, and its path is the difference's or one above it. */
function accepts(rule: AcceptRule, difference: Difference, kind: PatternKind): boolean {
  if (rule.kind !== kind) return false;
  if (rule.rule === undefined || difference.segments === undefined) return rule.rule === undefined && rule.path === difference.path;
  for (let length = difference.segments.length; length >= 0; length -= 1) {
    if (ruleMatches(rule.rule, difference.segments.slice(0, length))) return true;
  }
  return false;
}

function noiseKey(endpoint: string, path: string): string {
  return `${endpoint}\u0000${path}`;
}

/**
 * Noise patterns by path, from the comparisons of the left side with the second recording, and
 * the endpoints each was seen on (`noiseKey`).
 */
function groupNoise(comparisons: readonly RequestComparison[]): { byPath: Map<string, NoisePattern>; onEndpoint: Set<string> } {
  const byPath = new Map<string, NoisePattern & { lastComparison?: RequestComparison; endpointSet: Set<string> }>();
  const onEndpoint = new Set<string>();
  for (const comparison of comparisons) {
    for (const difference of comparison.differences) {
      const path = patternPath(difference);
      const pattern = byPath.get(path) ?? { path, kinds: [], requests: 0, endpoints: [], examples: [], leftOut: 0, endpointSet: new Set() };
      byPath.set(path, pattern);
      const kind = patternKind(difference);
      if (!pattern.kinds.includes(kind)) pattern.kinds.push(kind);
      countRequest(pattern, comparison, difference);
      pattern.endpointSet.add(comparison.endpoint);
      onEndpoint.add(noiseKey(comparison.endpoint, path));
    }
  }
  return {
    byPath: new Map(
      [...byPath].map(([path, { lastComparison: _, endpointSet, ...pattern }]) => [path, { ...pattern, endpoints: [...endpointSet].sort(compareText) }]),
    ),
    onEndpoint,
  };
}

function tally(
  patterns: Map<string, DifferencePattern & { lastComparison?: RequestComparison }>,
  key: { pattern: string; kind: PatternKind; standing: Standing; reason: string | undefined },
  comparison: RequestComparison,
  difference: Difference,
): void {
  const id = JSON.stringify([key.pattern, key.kind, key.standing, key.reason ?? null]);
  let pattern = patterns.get(id);
  if (pattern === undefined) {
    pattern = {
      path: key.pattern,
      kind: key.kind,
      standing: key.standing,
      ...(key.reason !== undefined ? { reason: key.reason } : {}),
      requests: 0,
      differences: 0,
      endpoints: [],
      examples: [],
    };
    patterns.set(id, pattern);
  }
  pattern.differences += 1;
  countRequest(pattern, comparison, difference);
  if (!pattern.endpoints.includes(comparison.endpoint)) {
    pattern.endpoints.push(comparison.endpoint);
    pattern.endpoints.sort(compareText);
  }
}

/**
 * Counts the request once per pattern (its differences come one request at a time), and takes the
 * first difference of each of the first requests as an example.
 */
function countRequest(
  pattern: { requests: number; examples: PatternExample[]; lastComparison?: RequestComparison },
  comparison: RequestComparison,
  difference: Difference,
): void {
  if (pattern.lastComparison === comparison) return;
  pattern.lastComparison = comparison;
  pattern.requests += 1;
  if (pattern.examples.length < MAX_EXAMPLES) {
    pattern.examples.push({
      request: comparison.request,
      path: difference.path,
      ...(difference.left !== undefined ? { left: difference.left } : {}),
      ...(difference.right !== undefined ? { right: difference.right } : {}),
    });
  }
}

function byWeight(a: { requests: number; path: string }, b: { requests: number; path: string }): number {
  return b.requests - a.requests || compareText(a.path, b.path);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
