/**
 * What the diff compares, and which differences it accepts, read from a rules file (`--rules rules.json`):
 *
 * ```json
 * { "ignore": ["$..meta.lastUpdated"], "keyOrder": false, "matchEntriesBy": "full_url",
 *   "compareBundleId": false, "headers": ["content-type", "cache-control"],
 *   "accept": [{ "path": "$.entry[*].resource.issued", "kind": "format", "reason": "…" }] }
 * ```
 * Every member is optional; the defaults are the values above with `ignore: []` and `accept: []`.
 */
import { readFile } from 'node:fs/promises';
import * as v from 'valibot';
import { parsePathRule, PathRuleError, type PathRule } from './json-path.ts';
import { PATTERN_KINDS, type PatternKind } from './pattern-kinds.ts';
import { RECORDED_HEADERS } from './recordings.ts';

/**
 * A difference accepted, with the reason (which the report shows next to it): still reported, as
 * accepted, but no longer making an endpoint's verdict "differs". `path` is a JSON path rule (what
 * the report prints as a pattern, pasted) matching the difference's path or one above it, or
 * `status` / `headers.<name>` literally; `kind` one of the report's kinds.
 */
export interface AcceptRule {
  path: string;
  /** The parsed JSON path; absent for `status` and `headers.<name>`, compared as written. */
  rule?: PathRule;
  kind: PatternKind;
  reason: string;
}

export interface DiffRules {
  /** Paths whose subtrees are not compared. */
  ignore: PathRule[];
  /** Whether object key order counts (JSON clients rarely depend on it, so off by default). */
  keyOrder: boolean;
  /** Bundle entries matched by `full_url` (else `resource.id`), or by position like other arrays. */
  matchEntriesBy: 'full_url' | 'position';
  /** A Bundle's `id` is generated per response on both systems, so it is not compared by default. */
  compareBundleId: boolean;
  /** Response headers compared (lower-case names). `etag` is left out by default: it digests the body, Bundle id included. */
  headers: string[];
  /** Differences still compared and shown, but accepted for the verdict. */
  accept: AcceptRule[];
}

export const DEFAULT_RULES: DiffRules = {
  ignore: [],
  keyOrder: false,
  matchEntriesBy: 'full_url',
  compareBundleId: false,
  headers: ['content-type', 'cache-control'],
  accept: [],
};

const rulesFileSchema = v.strictObject({
  ignore: v.optional(v.array(v.string())),
  keyOrder: v.optional(v.boolean()),
  matchEntriesBy: v.optional(v.picklist(['full_url', 'position'])),
  compareBundleId: v.optional(v.boolean()),
  headers: v.optional(v.array(v.string())),
  accept: v.optional(
    v.array(
      v.strictObject({
        path: v.string(),
        kind: v.picklist(PATTERN_KINDS),
        reason: v.pipe(v.string(), v.trim(), v.nonEmpty('give the reason the difference is accepted')),
      }),
    ),
  ),
});

export class RulesError extends Error {
  override readonly name = 'RulesError';
}

/** Rules from the parsed content of a rules file; throws `RulesError` naming what is wrong. */
export function rulesFrom(content: unknown): DiffRules {
  const result = v.safeParse(rulesFileSchema, content);
  if (!result.success) {
    const issue = result.issues[0];
    throw new RulesError(`rules: ${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`);
  }
  const file = result.output;
  let ignore: PathRule[];
  let accept: AcceptRule[];
  try {
    ignore = (file.ignore ?? []).map((rule) => parsePathRule(rule));
    accept = (file.accept ?? []).map(({ path, kind, reason }) => ({ path, kind, reason, ...acceptedPath(path) }));
  } catch (error) {
    if (error instanceof PathRuleError) throw new RulesError(`rules: ${error.message}`);
    throw error;
  }
  const headers = (file.headers ?? DEFAULT_RULES.headers).map((name) => name.toLowerCase());
  // A header the kit never records is absent on both sides: a rule naming it would compare nothing, silently.
  const unrecorded = headers.filter((name) => !(RECORDED_HEADERS as readonly string[]).includes(name));
  if (unrecorded.length > 0) {
    throw new RulesError(
      `rules: headers: ${unrecorded.map((name) => JSON.stringify(name)).join(', ')} never recorded; the kit records only ${RECORDED_HEADERS.join(', ')}`,
    );
  }
  return {
    ignore,
    keyOrder: file.keyOrder ?? DEFAULT_RULES.keyOrder,
    matchEntriesBy: file.matchEntriesBy ?? DEFAULT_RULES.matchEntriesBy,
    compareBundleId: file.compareBundleId ?? DEFAULT_RULES.compareBundleId,
    headers,
    accept,
  };
}

/** `status` and `headers.<name>` are not JSON paths: they name the status line and a header. */
function acceptedPath(path: string): { rule?: PathRule } {
  if (path === 'status' || /^headers\.[a-z0-9-]+$/.test(path)) return {};
  return { rule: parsePathRule(path, 'accept rule') };
}

export async function loadRulesFile(file: string): Promise<DiffRules> {
  let content: unknown;
  try {
    content = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new RulesError(`rules file ${file}: ${(error as Error).message}`);
  }
  return rulesFrom(content);
}
