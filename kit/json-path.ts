/**
 * JSON paths as the diff reports them and as ignore rules name them.
 *
 * A concrete path is a list of segments: an object key, or a bracket label — an array index
 * (`[3]`) or the key a Bundle entry was matched by (`[full_url=/Observation/5]`). Rules use a
 * small JSONPath subset: `$`, `.key`, `['key']`, `[3]`, `[full_url=/Observation/5]`, `.*` / `[*]`
 * (any one segment) and `..` (any number of segments, zero included): `$.id`,
 * `$.entry[*].resource.meta.lastUpdated`, `$..lastUpdated`.
 */

export type PathSegment = { key: string } | { label: string };
export type JsonPath = readonly PathSegment[];

type RuleToken = { key: string } | { label: string } | { any: true } | { descend: true };
export interface PathRule {
  source: string;
  tokens: RuleToken[];
}

export class PathRuleError extends Error {
  override readonly name = 'PathRuleError';
}

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

export function keySegment(key: string): PathSegment {
  return { key };
}

export function labelSegment(label: string | number): PathSegment {
  return { label: String(label) };
}

/** `$.entry[full_url=/Observation/5].resource.code`, keys that are not plain written `['key']` (`\\` and `\'` escaped). */
export function renderPath(path: JsonPath): string {
  let text = '$';
  for (const segment of path) {
    if ('label' in segment) text += `[${segment.label}]`;
    else text += PLAIN_KEY.test(segment.key) ? `.${segment.key}` : `['${segment.key.replace(/[\\']/g, (c) => `\\${c}`)}']`;
  }
  return text;
}

/**
 * The path with every bracket (an array index, a Bundle entry's label) written `[*]`: the pattern
 * a difference is grouped under, in the rule syntax below, so that it can be pasted into a rule.
 */
export function patternOf(path: JsonPath): string {
  return renderPath(path.map((segment) => ('label' in segment ? ANY_LABEL : segment)));
}

const ANY_LABEL: PathSegment = { label: '*' };

/** Parses one ignore rule; throws `PathRuleError` naming the rule when it is not the syntax above. */
export function parsePathRule(source: string, what = 'ignore rule'): PathRule {
  if (!source.startsWith('$')) throw new PathRuleError(`${what} ${JSON.stringify(source)} must start with "$"`);
  const tokens: RuleToken[] = [];
  let at = 1;
  const fail = (why: string): never => {
    throw new PathRuleError(`${what} ${JSON.stringify(source)}: ${why} at character ${at + 1}`);
  };
  while (at < source.length) {
    if (source.startsWith('..', at)) {
      tokens.push({ descend: true });
      at += 2;
      // `..key` and `..[x]`: the part after `..` is read by the next round as a key or a bracket.
      if (source[at] !== '[') at = readKey(at);
    } else if (source[at] === '.') {
      at = readKey(at + 1);
    } else if (source.startsWith("['", at) || source.startsWith('["', at)) {
      at = readQuotedKey(at + 1);
    } else if (source[at] === '[') {
      const end = source.indexOf(']', at);
      if (end < 0) fail('unclosed "["');
      const inner = source.slice(at + 1, end);
      if (inner === '*') tokens.push({ any: true });
      else if (inner === '') fail('empty "[]"');
      else tokens.push({ label: inner });
      at = end + 1;
    } else {
      fail('expected ".", ".." or "["');
    }
  }
  return { source, tokens };

  /** `['key']` from its quote: `\\` escapes the next character, so a key may hold `'`, `]` and `\\`. */
  function readQuotedKey(from: number): number {
    const quote = source[from]!;
    let key = '';
    let end = from + 1;
    while (end < source.length && source[end] !== quote) {
      if (source[end] === '\\') end += 1;
      key += source[end] ?? '';
      end += 1;
    }
    at = end;
    if (source[end] !== quote || source[end + 1] !== ']') fail('unclosed quoted key');
    tokens.push({ key });
    return end + 2;
  }

  function readKey(from: number): number {
    let end = from;
    while (end < source.length && source[end] !== '.' && source[end] !== '[') end += 1;
    const key = source.slice(from, end);
    if (key === '') fail('empty key');
    tokens.push(key === '*' ? { any: true } : { key });
    return end;
  }
}

/** Whether a rule names exactly this path (the diff skips the whole subtree under a match). */
export function ruleMatches(rule: PathRule, path: JsonPath): boolean {
  return matchFrom(rule.tokens, 0, path, 0);
}

function matchFrom(tokens: RuleToken[], t: number, path: JsonPath, p: number): boolean {
  if (t === tokens.length) return p === path.length;
  const token = tokens[t]!;
  if ('descend' in token) {
    for (let skip = p; skip <= path.length; skip += 1) if (matchFrom(tokens, t + 1, path, skip)) return true;
    return false;
  }
  const segment = path[p];
  if (segment === undefined) return false;
  if ('any' in token) return matchFrom(tokens, t + 1, path, p + 1);
  if ('key' in token) return 'key' in segment && segment.key === token.key && matchFrom(tokens, t + 1, path, p + 1);
  return 'label' in segment && segment.label === token.label && matchFrom(tokens, t + 1, path, p + 1);
}
