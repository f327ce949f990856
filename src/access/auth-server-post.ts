/**
 * The one HTTP call the authorization side makes (token endpoint, introspection): a form POST
 * answered with a JSON object. Over the platform `fetch` on both runtimes: these calls are rare
 * (their answers are kept), so undici's speed is not needed. Redirects are not followed (they would
 * carry a client secret elsewhere) and bodies are bounded; no body is ever put into an error.
 */
import { FacadeError, type ErrorCode } from '../errors.ts';
import { networkFailureKind } from '../upstream/failure-kind.ts';
import { readLimited } from '../ports/bounded-body.ts';

const TIMEOUT_MS = 10_000;
const MAX_BODY_BYTES = 1024 * 1024;

export interface FormAnswer {
  status: number;
  /** The JSON object answered; empty when the body was not one. */
  body: Record<string, unknown>;
}

export async function postForm(
  url: string,
  form: URLSearchParams,
  headers: Record<string, string>,
  fetchImpl: typeof fetch = fetch,
  failure: ErrorCode,
): Promise<FormAnswer> {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new FacadeError(failure, 'the authorization server is unreachable', { cause: error, reason: networkFailureKind(error) });
  }
  const text = await readLimited(response.body, Number(response.headers.get('content-length') ?? 0), MAX_BODY_BYTES).catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = {};
  }
  return { status: response.status, body: typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {} };
}

/** HTTP Basic client authentication as RFC 6749 2.3.1 has it: both parts form-encoded first. */
export function basicAuthorization(clientId: string, secret: string): string {
  const formEncode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${btoa(`${formEncode(clientId)}:${formEncode(secret)}`)}`;
}
