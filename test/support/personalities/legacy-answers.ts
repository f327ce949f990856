/**
 * Sending a matrix request to a facade and comparing its answer with the plain server's, byte for
 * byte except the Bundle `id` (a fresh uuid per answer); a difference is described by its first
 * differing character, which is what a service engineer needs to find the cause.
 */
import type { MatrixRequest } from './matrix-requests.ts';

export interface LegacyAnswer {
  status: number;
  /** The body as sent, the Bundle id replaced. */
  body: string;
}

export async function send(facadeUrl: string, request: MatrixRequest): Promise<LegacyAnswer> {
  const init: RequestInit =
    request.method === 'POST' ? { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: request.query } : {};
  const response = await fetch(`${facadeUrl}${request.path}`, init);
  return { status: response.status, body: withoutBundleId(await response.text()) };
}

/** The legacy Bundle's `id` (spec 2.1) is new on every answer: replaced, nothing else is touched. */
export function withoutBundleId(body: string): string {
  return body.replace(/^(\{"resourceType":"Bundle","id":")(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"/, '$1<bundle id>"');
}

/**
 * A clean error: an OperationOutcome with an error status that says the upstream failed (5xx), or
 * that the caller should come back later (429, a status the service may choose for throttling).
 */
export function isCleanError(answer: LegacyAnswer): boolean {
  if (answer.status < 500 && answer.status !== 429) return false;
  try {
    const body = JSON.parse(answer.body) as { resourceType?: unknown; issue?: unknown };
    return body.resourceType === 'OperationOutcome' && Array.isArray(body.issue) && body.issue.length > 0;
  } catch {
    return false;
  }
}

/** undefined when identical; else the status pair and both sides around the first differing character. */
export function describeDifference(request: MatrixRequest, expected: LegacyAnswer, actual: LegacyAnswer): string | undefined {
  if (expected.status === actual.status && expected.body === actual.body) return undefined;
  let at = 0;
  while (at < expected.body.length && expected.body[at] === actual.body[at]) at += 1;
  const around = (text: string) => text.slice(Math.max(0, at - 60), at + 100);
  const lengths = `${expected.body.length} vs ${actual.body.length} chars`;
  // A short answer (an error) is shown whole: its diagnostics say why.
  const here = actual.body.length <= 400 ? actual.body : around(actual.body);
  return `${request.label}: plain ${expected.status}, here ${actual.status}; ${lengths}; first difference at ${at}: plain «${around(expected.body)}» here «${here}»`;
}
