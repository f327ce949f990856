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
