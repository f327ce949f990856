/**
 * The caller's access token (spec section 5) and the per-route policy on its absence.
 */
import { FacadeError } from '../errors.ts';
import { holdsToken } from '../token-match.ts';
import type { AuthPolicy } from '../route-types.ts';

/** The query parameter that carries the caller's token (spec section 5). */
export const TOKEN_PARAMETER = 'access_token';

/**
 * The token from `access_token` in the query, or from an `Authorization: Bearer` header. Both at
 * once must agree: two different credentials in one request are refused rather than guessed at.
 */
export function callerToken(query: URLSearchParams, authorization: string | undefined): string | undefined {
  return tokenOf(query.getAll(TOKEN_PARAMETER), authorization);
}

/** {@link callerToken} from the `access_token` values already read from the query (src/pipeline/raw-query.ts). */
export function tokenOf(fromQuery: readonly string[], authorization: string | undefined): string | undefined {
  if (fromQuery.length > 1) throw new FacadeError('bad-parameter', 'access_token may be given only once');
  const queryToken = fromQuery[0]?.trim() || undefined;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (authorization !== undefined && authorization !== '' && !bearer) {
    throw new FacadeError('unauthorized', 'the Authorization header must be "Bearer <token>"');
  }
  const headerToken = bearer?.[1];
  if (queryToken !== undefined && headerToken !== undefined && queryToken !== headerToken) {
    throw new FacadeError('bad-parameter', 'access_token and the Authorization header carry different tokens');
  }
  const token = queryToken ?? headerToken;
  // RFC 6750 b64token syntax. Anything else (spaces, CR/LF, NUL) could not go into a header anyway.
  if (token !== undefined && !/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) throw new FacadeError('bad-token');
  return token;
}

/** Enforces a route's policy on a request without a token. */
export function enforceAuthPolicy(policy: AuthPolicy, token: string | undefined): void {
  if (token !== undefined) return;
  if (policy === 'token-required') throw new FacadeError('unauthorized');
  if (policy === 'forbidden-without-token') throw new FacadeError('forbidden');
}

/**
 * Refuses a request whose token also stands in another of its values (a path id, a parameter):
 * whatever holds it would carry the token into the upstream URL, the audit line or an error text.
 * The refusal itself names only where the token was found, never the value.
 */
export function refuseTokenElsewhere(token: string | undefined, query: URLSearchParams, id: string | undefined): void {
  if (token === undefined) return;
  if (id !== undefined && holdsToken(id, token)) throw new FacadeError('bad-parameter', 'the record id holds the access token');
  for (const [name, value] of query) {
    if (name !== TOKEN_PARAMETER && holdsToken(value, token)) throw new FacadeError('bad-parameter', 'a request parameter holds the access token');
  }
}
