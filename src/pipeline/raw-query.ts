/**
 * The query of a GET as written, read once on every request before anything is validated: the
 * caller's token (with every check of auth.ts) and the rest of the query without it, which names
 * the request in the memo of validated requests (validated-requests.ts) and never holds the token.
 */
import { TOKEN_PARAMETER, tokenOf } from '../access/token-policy.ts';

export interface RawQuery {
  /** The caller's token from `access_token` or `Authorization: Bearer` (checked as callerToken checks it). */
  token: string | undefined;
  /**
   * The query without its `access_token` pairs, in their order: parsed, it gives exactly the
   * parameters of the whole query but the token's, so equal `rest`s validate alike.
   */
  rest: string;
}

/**
 * Reads a raw query string (without its `?`). Without `%` or `+` a query decodes to itself, so its
 * pairs are split as written (what URLSearchParams would give, without building one); otherwise
 * URLSearchParams decodes it (and drops a leading `?`) and its serialization, which parses back to the
 * same pairs, is the rest.
 */
export function readRawQuery(raw: string, authorization: string | undefined): RawQuery {
  // A leading `?` (a URL with `??`) is dropped by URLSearchParams: that path reads it as the rest of the service does.
  if (raw.startsWith('?') || raw.includes('%') || raw.includes('+')) return decodedQuery(raw, authorization);
  const tokens: string[] = [];
  let rest = '';
  let start = 0;
  while (start <= raw.length) {
    let end = raw.indexOf('&', start);
    if (end === -1) end = raw.length;
    if (end > start) {
      const pair = raw.slice(start, end);
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      if (name === TOKEN_PARAMETER) tokens.push(equals === -1 ? '' : pair.slice(equals + 1));
      else rest = rest === '' ? pair : `${rest}&${pair}`;
    }
    start = end + 1;
  }
  return { token: tokenOf(tokens, authorization), rest };
}

function decodedQuery(raw: string, authorization: string | undefined): RawQuery {
  const query = new URLSearchParams(raw);
  const token = tokenOf(query.getAll(TOKEN_PARAMETER), authorization);
  query.delete(TOKEN_PARAMETER);
  return { token, rest: query.toString() };
}
