/**
 * What the diff compares, read from a rules file (`--rules rules.json`):
 *
 * ```json
 * { "ignore": ["$..meta.lastUpdated"], "keyOrder": false, "matchEntriesBy": "full_url",
 *   "compareBundleId": false, "headers": ["content-type", "cache-control"] }
 * ```
 * Every member is optional; the defaults are the values above with `ignore: []`.
 */
import { readFile } from 'node:fs/promises';
import * as v from 'valibot';
import { parsePathRule, PathRuleError, type PathRule } from './json-path.ts';
import { RECORDED_HEADERS } from './recordings.ts';

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
}

export const DEFAULT_RULES: DiffRules = {
  ignore: [],
  keyOrder: false,
  matchEntriesBy: 'full_url',
  compareBundleId: false,
  headers: ['content-type', 'cache-control'],
};

const rulesFileSchema = v.strictObject({
  ignore: v.optional(v.array(v.string())),
  keyOrder: v.optional(v.boolean()),
  matchEntriesBy: v.optional(v.picklist(['full_url', 'position'])),
  compareBundleId: v.optional(v.boolean()),
  headers: v.optional(v.array(v.string())),
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
  try {
    ignore = (file.ignore ?? []).map(parsePathRule);
  } catch (error) {
    if (error instanceof PathRuleError) throw new RulesError(`rules: ${error.message}`);
    throw error;
  }
  const headers = (file.headers ?? DEFAULT_RULES.headers).map((name) => name.toLowerCase());
  // A header the kit never records is absent on both sides: a rule naming it would compare nothing, silently.
  const unrecorded = headers.filter((name) => !(RECORDED_HEADERS as readonly string[]).includes(name));
  if (unrecorded.length > 0) {
    throw new RulesError(`rules: headers: ${unrecorded.map((name) => JSON.stringify(name)).join(', ')} never recorded; the kit records only ${RECORDED_HEADERS.join(', ')}`);
  }
  return {
    ignore,
    keyOrder: file.keyOrder ?? DEFAULT_RULES.keyOrder,
    matchEntriesBy: file.matchEntriesBy ?? DEFAULT_RULES.matchEntriesBy,
    compareBundleId: file.compareBundleId ?? DEFAULT_RULES.compareBundleId,
    headers,
  };
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
