/**
 * Sends one recorded or listed request to a base URL, with the token the way the legacy interface
 * takes it (`access_token` in the query, or in the form body of a POST), and reads the answer.
 *
 * The token exists only in the URL or body handed to `fetch`: never in what this returns, and never
 * in an error message (they name the request by `requestLine`, which has no token).
 */
import { RECORDED_HEADERS, requestLine } from './recordings.ts';
import type { RequestSpec } from './requests-file.ts';

export interface Exchange {
  status: number;
  /** The headers of `RECORDED_HEADERS` that the answer had, lower-case names. */
  headers: Record<string, string>;
  bodyText: string;
}

export class ExchangeError extends Error {
  override readonly name = 'ExchangeError';
}

const REQUEST_TIMEOUT_MS = 60_000;

export async function sendRequest(baseUrl: string, request: RequestSpec, token: string | undefined): Promise<Exchange> {
  const sendToken = request.withToken && token !== undefined && token !== '';
  const query = new URLSearchParams(request.query);
  const init: RequestInit = {
    method: request.method,
    // A redirect is recorded, never followed: following it would carry the token to wherever it points.
    redirect: 'manual',
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  };
  if (request.method === 'POST') {
    const body = new URLSearchParams(request.requestBody ?? '');
    if (sendToken) body.append('access_token', token);
    init.body = body.toString();
    init.headers = { 'content-type': 'application/x-www-form-urlencoded' };
  } else if (sendToken) {
    query.append('access_token', token);
  }
  const queryText = query.toString();
  const url = `${baseUrl.replace(/\/+$/, '')}${request.path}${queryText ? `?${queryText}` : ''}`;
  let response: Response;
  let bodyText: string;
  try {
    response = await fetch(url, init);
    bodyText = await response.text();
  } catch (error) {
    // The cause (ECONNREFUSED, a timeout) is what helps; the URL, which holds the token, is left out.
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).name;
    throw new ExchangeError(`${requestLine(request)} on ${new URL(baseUrl).origin}: ${why}`);
  }
  const headers: Record<string, string> = {};
  for (const name of RECORDED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { status: response.status, headers, bodyText };
}

// RFC 6750 token syntax `[A-Za-z0-9-._~+/]+=*`: a character before the token that could belong to a
// longer token, or one after it (padding included), means this is part of another word.
const BEFORE_TOKEN = '[A-Za-z0-9\\-._~+/]';
const AFTER_TOKEN = '[A-Za-z0-9\\-._~+/=]';

/** Whether a text holds the token as a whole word (not as part of a longer token-like word). */
export function containsToken(text: string, token: string | undefined): boolean {
  return token !== undefined && token !== '' && tokenPattern(token).test(text);
}

/** The text with every occurrence of the token replaced by `[token]`, for anything printed or written. */
export function scrubToken(text: string, token: string | undefined): string {
  return token === undefined || token === '' ? text : text.replace(tokenPattern(token, 'g'), '[token]');
}

/** The token as written and as URL-encoded (a server echoing it in a link writes it encoded). */
function tokenPattern(token: string, flags = ''): RegExp {
  const forms = [...new Set([token, encodeURIComponent(token)])].map((form) => form.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  return new RegExp(`(?<!${BEFORE_TOKEN})(?:${forms.join('|')})(?!${AFTER_TOKEN})`, flags);
}
