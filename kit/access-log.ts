/**
 * One line of the old system's access log (common or combined log format, as Apache and nginx
 * write it) read as a request the kit can record, or the reason it cannot:
 *
 * ```text
 * 127.0.0.1 - - [10/Oct/2026:13:55:36 -0400] "GET /api/DiagnosticReport?patient=1&access_token=… HTTP/1.1" 200 2326 "-" "Mozilla/5.0"
 * ```
 * Kept: GET requests of a legacy operation that were answered 200–499 (a recorded 401 or 404 is
 * what clients really meet; a 5xx was the old system failing, which the facade must not copy).
 * The `access_token` is taken out here, before the request is held anywhere: what leaves this
 * module is the request without it, and whether it had one. Nothing of a line is ever quoted in
 * a message: it may hold a token or a patient id.
 */
import { containsToken } from './token-scan.ts';

export type SkipReason =
  | 'malformed-line'
  | 'unreadable-request'
  | 'post-form-body'
  | 'other-method'
  | 'not-legacy-operation'
  | 'server-error'
  | 'other-status'
  | 'repeated-token'
  | 'token-elsewhere';

/** Why each kind of line is left out, as the report says it. */
export const SKIP_REASONS: Readonly<Record<SkipReason, string>> = {
  'malformed-line': 'not a common or combined log line',
  'unreadable-request': 'request not "METHOD /path HTTP/x", or with characters the log escaped',
  'post-form-body': 'POST: its form body is not in the log (list such requests by hand)',
  'other-method': 'a method other than GET and POST',
  'not-legacy-operation': 'not a path of a legacy operation',
  'server-error': 'answered 5xx (the old system failing)',
  'other-status': 'a status outside 100–599 or missing',
  'repeated-token': 'access_token given more than once',
  'token-elsewhere': 'a token, or the word access_token, outside the access_token parameter',
};

/** A request read from a log line: never holding a token. */
export interface LoggedRequest {
  method: 'GET';
  /** As the log wrote it (percent escapes kept). */
  path: string;
  /** Decoded pairs in canonical order (see `canonicalOrder`), without any `access_token`. */
  query: [string, string][];
  /** Whether the line carried a token (a non-blank `access_token`): recorded with the kit's token, else without. */
  withToken: boolean;
  /** Method and path with the record id generalized: `GET /api/DiagnosticReport/:id`. */
  endpoint: string;
}

export type LineVerdict = { request: LoggedRequest; skipped?: never } | { skipped: SkipReason; request?: never };

/**
 * The resources of the legacy interface (spec section 4.1), each served at `/<name>` and
 * `/api/<name>`, with `/<name>/<id>` for by-id reads and `/<name>/_search`. The kit imports
 * nothing from the service, so the list is kept here; test/migration/access-log.test.ts checks it
 * against the service's route table.
 */
export const LEGACY_RESOURCES: readonly string[] = [
  'AllergyIntolerance',
  'AlleryIntolerance',
  'Assessments',
  'CarePlan',
  'CareTeam',
  'Condition',
  'Coverage',
  'DiagnosticReport',
  'Encounter',
  'Immunization',
  'Observation',
  'Orders',
  'Practitioner',
  'Procedure',
  'SDOHGoal',
  'Specimen',
];

/** The prefix fields (host, ident, user), `[time]`, `"request"`, status, size, and whatever follows (referer, agent). */
const LOG_LINE = /^[^"[]*\[[^\]]*\] "((?:[^"\\]|\\.)*)" (\S+) \S+(?:\s.*)?$/;
/** Request line; a `\` means the server escaped a quote or a raw byte, so the target is not the one sent. */
const REQUEST = /^([A-Za-z]+) (\/[^\s\\]*?)(?: HTTP\/\d(?:\.\d)?)?$/;
const LEGACY_PATH = new RegExp(`^(/api)?/(${LEGACY_RESOURCES.join('|')})(?:/([^/#\\s\\x00-\\x1f\\x7f]+))?$`);
/** As the service: shorter values are no secret, and looking for them elsewhere would refuse ordinary lines. */
const MIN_TOKEN_LENGTH_SOUGHT = 8;

/**
 * What a log line stands for. `knownTokens` (the kit's own, from the environment) are looked for
 * too, so a log made with the team's token never carries it into a requests file.
 */
export function readLogLine(line: string, knownTokens: readonly string[] = []): LineVerdict {
  const logged = LOG_LINE.exec(line);
  if (!logged) return { skipped: 'malformed-line' };
  const [, requestText = '', statusText = ''] = logged;
  const request = REQUEST.exec(requestText);
  if (!request) return { skipped: 'unreadable-request' };
  const [, method = '', target = ''] = request;
  if (method === 'POST') return { skipped: 'post-form-body' };
  if (method !== 'GET') return { skipped: 'other-method' };
  const questionMark = target.indexOf('?');
  const path = questionMark < 0 ? target : target.slice(0, questionMark);
  const legacy = LEGACY_PATH.exec(path);
  if (!legacy) return { skipped: 'not-legacy-operation' };
  const status = /^\d{3}$/.test(statusText) ? Number(statusText) : 0;
  if (status >= 500 && status <= 599) return { skipped: 'server-error' };
  if (status < 100 || status > 599) return { skipped: 'other-status' };

  const kept: [string, string][] = [];
  const tokens = knownTokens.filter((token) => token.length >= MIN_TOKEN_LENGTH_SOUGHT);
  let tokenParameters = 0;
  let withToken = false;
  // URLSearchParams decodes names, so `access%5Ftoken` is caught like the service reads it.
  for (const [name, value] of new URLSearchParams(questionMark < 0 ? '' : target.slice(questionMark + 1))) {
    if (name.toLowerCase() !== 'access_token') {
      kept.push([name, value]);
      continue;
    }
    tokenParameters += 1;
    // The service takes the exact name only, and a blank value as none (docs/decisions.md, "Access tokens").
    if (name === 'access_token' && value.trim() !== '') withToken = true;
    if (value.length >= MIN_TOKEN_LENGTH_SOUGHT) tokens.push(value);
  }
  // Two tokens in one request are refused by the service, and a requests file cannot say "twice".
  if (tokenParameters > 1) return { skipped: 'repeated-token' };
  if (holdsTokenLike([path, ...kept.flat()], tokens)) return { skipped: 'token-elsewhere' };
  const [, api = '', resource = '', id] = legacy;
  const idPart = id === undefined ? '' : id === '_search' ? '/_search' : '/:id';
  return { request: { method: 'GET', path, query: canonicalOrder(kept), withToken, endpoint: `GET ${api}/${resource}${idPart}` } };
}

/**
 * Whether any part holds one of the tokens, or names `access_token`, however encoded (token-scan
 * decodes the escapes round by round). Such a line is left out rather than cleaned: the token
 * could sit in an id or inside another parameter, where cutting it would change the request. A
 * token's `+` reads as a space once a query is decoded, so both spellings are looked for.
 */
function holdsTokenLike(parts: readonly string[], tokens: readonly string[]): boolean {
  const spellings = tokens.flatMap((token) => [token, token.replaceAll(' ', '+'), token.replaceAll('+', ' ')]);
  return parts.some((part) => namesAccessToken(part) || spellings.some((token) => holds(part, token)));
}

/** Whether the text says `access_token` in any letter case, percent-encoded once or several times (`%2541CCESS_TOKEN`). */
function namesAccessToken(text: string): boolean {
  let decoded = text;
  for (let round = 0; round <= 8; round += 1) {
    if (decoded.toLowerCase().includes('access_token')) return true;
    const next = decoded.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    if (next === decoded) return false;
    decoded = next;
  }
  return false;
}

/** Something token-scan could decode: `%`, `\` or `&` (most parts have none, and a log may have millions of lines). */
const ESCAPE_START = /[%\\&]/;

function holds(text: string, needle: string): boolean {
  return ESCAPE_START.test(text) || ESCAPE_START.test(needle) ? containsToken(text, needle) : text.includes(needle);
}

/**
 * Parameters sorted by name; values of one name keep their order (`date=a&date=b` may mean
 * something else than `date=b&date=a`). The same request written in another order is one request.
 */
export function canonicalOrder(pairs: readonly [string, string][]): [string, string][] {
  return pairs
    .map((pair, index) => ({ pair, index }))
    .sort((a, b) => (a.pair[0] < b.pair[0] ? -1 : a.pair[0] > b.pair[0] ? 1 : a.index - b.index))
    .map(({ pair }) => pair);
}

/** The request's identity for deduplication: method, path, canonical parameters, with a token or not. */
export function requestKey(request: LoggedRequest): string {
  return JSON.stringify([request.method, request.path, request.query, request.withToken]);
}

/** The request as a requests-file line (requests-file.ts reads it back to the same request). */
export function requestsFileLine(request: LoggedRequest): string {
  const query = new URLSearchParams(request.query).toString();
  return `${request.method} ${request.path}${query === '' ? '' : `?${query}`}${request.withToken ? '' : '   # no-token'}`;
}
