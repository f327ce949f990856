/**
 * What the upstream requests of one read or one search share: the deadline and the bulkhead
 * partition (the resource type). `search()` and `read()` start one `AbortSignal.timeout` per
 * operation and make its first request in the same tick, so the first request seen under a signal
 * marks when the operation began; every later page (HAPI's `?_getpages=` links name no type) keeps
 * the partition of the first.
 */

export interface OperationContext {
  /** `Date.now()` time by which the operation must be done. */
  deadline: number;
  partition: string;
}

const operations = new WeakMap<AbortSignal, OperationContext>();

/** A resource type name; anything else in that place is grouped as `other` (it becomes a metrics label). */
const TYPE_NAME = /^[A-Z][A-Za-z]{0,63}$/;

export function operationOf(signal: AbortSignal, url: string, baseUrl: string, timeoutMs: number): OperationContext {
  let operation = operations.get(signal);
  if (operation === undefined) {
    operation = { deadline: Date.now() + timeoutMs, partition: partitionOf(url, baseUrl) };
    operations.set(signal, operation);
  }
  return operation;
}

/** The first path segment under the base: `Observation` of `…/fhir/Observation?…`, `metadata` stays `other`. */
function partitionOf(url: string, baseUrl: string): string {
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const path = new URL(url).pathname;
  if (!path.startsWith(`${basePath}/`)) return 'other';
  const segment = decodeURIComponent(path.slice(basePath.length + 1).split('/')[0] ?? '');
  return TYPE_NAME.test(segment) ? segment : 'other';
}
