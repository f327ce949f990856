/**
 * The handler of one legacy operation: token, validation, access control, the response cache, the
 * pipeline on a miss, and the answer with its ETag.
 *
 * The hit path does only what a cached answer needs, in this order: the token read and checked
 * (every request), the request looked up among those already validated (a new one is validated;
 * an invalid one gets its 4xx every time), access control (every request), the cache, and the
 * stored bytes copied with a fresh Bundle id. When every step can answer at once (a fresh entry,
 * access control in passthrough, native hashing) no promise is made at all (docs/performance.md).
 */
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { BodyBuffers, WrittenSignal } from './cache/body-buffers.ts';
import { callerKey, etagMatches, renderBody, storedBody } from './cache/cache-key.ts';
import type { Hashing } from './ports/hashing.ts';
import type { CacheOutcome, KeepAlive, ResponseCache, StoredBody } from './cache/response-cache.ts';
import { FacadeError } from './errors.ts';
import type { Metrics } from './metrics.ts';
import type { AccessControl } from './access/access-control.ts';
import { callerToken } from './access/token-policy.ts';
import { canonicalRequestKey, prepareRequest, runRequest, type PipelineDeps, type PreparedRequest } from './pipeline/legacy-operation.ts';
import { readRawQuery } from './pipeline/raw-query.ts';
import { ValidatedRequests, type ValidatedRequest } from './pipeline/validated-requests.ts';
import { JSON_TYPE, type RequestRecord, type ScopedHandler } from './request-scope.ts';
import type { Route } from './route-types.ts';
import { inChildSpan, type Span } from './tracing/span.ts';

/** Largest `POST …/_search` form body accepted. */
const MAX_FORM_BODY_BYTES = 64 * 1024;

export interface LegacyHandlerDeps {
  pipeline: PipelineDeps;
  cache: ResponseCache | undefined;
  hashing: Hashing;
  access: AccessControl;
  metrics: Metrics;
  newBundleId: () => string;
  /** False while the service is still starting: legacy operations answer 503 until then. */
  started?: () => boolean;
}

/** What the legacy handlers share: the memo of validated requests, the buffers of hit bodies. */
export interface LegacyHandlerState {
  validated: ValidatedRequests;
  bodyBuffers: BodyBuffers;
}

/** The handler of `route` (one per route, sharing `state` with the others). */
export function legacyHandler(route: Route, deps: LegacyHandlerDeps, state: LegacyHandlerState): ScopedHandler {
  const formLimit = bodyLimit({
    maxSize: MAX_FORM_BODY_BYTES,
    onError: () => {
      throw new FacadeError('payload-too-large', `at most ${MAX_FORM_BODY_BYTES} bytes`);
    },
  });
  const { cache, hashing } = deps;

  /** Everything of the route after the body limit. */
  const begin = (c: Context, record: RequestRecord): Response | Promise<Response> => {
    record.routeName = route.name;
    // Until the start has finished (the embedded data loading) an answer could miss records: none is given.
    if (deps.started?.() === false) throw new FacadeError('service-starting', undefined, { retryAfterSeconds: 5 });
    record.audit = { subject: undefined, patient: undefined, resources: [] };
    if (route.method === 'POST' || cache === undefined) return answerLater(c, record, undefined);
    const { token, rest } = readRawQuery(rawQueryOf(c.req.url), c.req.header('authorization'));
    const id = c.req.param('id');
    // Looked up by the token's fingerprint where there is one (Node): no keyed hash on a hit.
    const fingerprint = token === undefined ? 'anonymous' : hashing.fingerprintOf?.(token);
    const known = fingerprint === undefined ? undefined : state.validated.get(ValidatedRequests.keyOf(fingerprint, route.name, id, rest));
    if (known !== undefined) return fromValidated(c, record, known, token, cache);
    const caller = callerKey(hashing, token);
    if (caller instanceof Promise) return caller.then((key) => validate(c, record, key, fingerprint ?? key, token, id, rest, cache));
    return validate(c, record, caller, fingerprint ?? caller, token, id, rest, cache);
  };

  /** A request found among the validated ones by its caller's key (no fingerprint), else validated now and remembered once valid. */
  function validate(
    c: Context,
    record: RequestRecord,
    caller: string,
    name: string,
    token: string | undefined,
    id: string | undefined,
    rest: string,
    cache: ResponseCache,
  ) {
    const memoKey = ValidatedRequests.keyOf(name, route.name, id, rest);
    let known = state.validated.get(memoKey);
    if (known === undefined) {
      const prepared = prepareRequest(route, { query: queryOf(c.req.url), id, token });
      // Remembered without the token: the memo outlives the request, the token must not (it is read again on every request).
      known = { prepared: { ...prepared, token: undefined }, caller, cacheKey: `${caller}|${canonicalRequestKey(prepared)}` };
      state.validated.remember(memoKey, known);
    }
    return fromValidated(c, record, known, token, cache);
  }

  /** A valid GET with a cache: access control, then a fresh entry answered at once, anything else later. */
  function fromValidated(
    c: Context,
    record: RequestRecord,
    known: ValidatedRequest,
    token: string | undefined,
    cache: ResponseCache,
  ): Response | Promise<Response> {
    // The remembered request with this request's token (the one its memo key's fingerprint names).
    const prepared = token === undefined ? known.prepared : { ...known.prepared, token };
    // Passthrough never names a caller: no callback made for it.
    const admitted = deps.access.admit(prepared, deps.access.mode === 'passthrough' ? undefined : identifiedIn(record));
    if (admitted instanceof Promise)
      return admitted.then((request) => answerLater(c, record, { prepared: auditAdmitted(record, request), caller: known.caller }));
    const request = auditAdmitted(record, admitted);
    // Access control may narrow the request (service mode pins the patient): its own key then.
    const key = request === prepared ? known.cacheKey : `${known.caller}|${canonicalRequestKey(request)}`;
    const body = cache.peek(key);
    if (body === undefined) return answerLater(c, record, { prepared: request, caller: known.caller });
    const span = record.span?.child('cache', 'internal');
    if (span?.recording) span.set('facade.cache.outcome', 'hit');
    span?.end();
    return answer(c, record, body, 'hit');
  }

  /** A POST, a request with no cache, and every step after one that had to wait (a miss, a stale entry, access control in service mode). */
  async function answerLater(c: Context, record: RequestRecord, ready: { prepared: PreparedRequest; caller: string } | undefined): Promise<Response> {
    let prepared = ready?.prepared;
    if (prepared === undefined) {
      const query = route.method === 'POST' ? await queryWithForm(c) : queryOf(c.req.url);
      const token = callerToken(query, c.req.header('authorization'));
      prepared = auditAdmitted(record, await deps.access.admit(prepareRequest(route, { query, id: c.req.param('id'), token }), identifiedIn(record)));
    }
    const request = prepared;
    const load = async (trace: Span | undefined): Promise<StoredBody> => {
      const result = await runRequest(request, deps.pipeline, trace);
      record.upstreamPages = result.upstreamPages;
      deps.metrics.upstreamPages.observe(result.upstreamPages);
      return { ...(await storedBody(JSON.stringify(result.payload), hashing.digest)), resourceIds: result.resourceIds };
    };
    if (cache === undefined) return answer(c, record, await load(record.span), 'bypass');
    const key = `${ready?.caller ?? (await callerKey(hashing, request.token))}|${canonicalRequestKey(request)}`;
    // The upstream calls and the mapping of a load are recorded under the cache's span. The token
    // goes with the key: a shared tier seals the entry for this caller (src/cache/sealed-tier.ts).
    const found = await inChildSpan(record.span, 'cache', async (span) => {
      const got = await cache.get(key, () => load(span), keepAliveOf(c), request.token);
      if (span?.recording) span.set('facade.cache.outcome', got.outcome);
      return got;
    });
    return answer(c, record, found.body, found.outcome);
  }

  function answer(c: Context, record: RequestRecord, body: StoredBody, outcome: CacheOutcome): Response {
    record.cache = outcome;
    record.audit = { subject: record.audit?.subject, patient: record.audit?.patient, resources: body.resourceIds ?? [] };
    deps.metrics.cacheEvents.inc({ outcome });
    // private: the body is one patient's data for one caller; no shared cache may keep it. Names in
    // the order Hono's header object wrote them (sorted), so the answers are the same on the wire.
    if (route.method === 'GET' && etagMatches(c.req.header('if-none-match'), body.etag)) {
      return new Response(null, {
        status: 304,
        headers: { 'cache-control': 'private, no-cache', etag: body.etag, vary: 'Authorization', 'x-request-id': record.requestId },
      });
    }
    const written = writtenSignalOf(c);
    const bytes = renderBody(body, deps.newBundleId, (size) => state.bodyBuffers.take(size, written));
    const headers: Record<string, string> = {
      'cache-control': 'private, no-cache',
      'content-type': JSON_TYPE,
      etag: body.etag,
      vary: 'Authorization',
      'x-request-id': record.requestId,
    };
    // Where @hono/node-server put it (a HEAD answer has none, as Hono's HEAD answers never had).
    if (c.req.method !== 'HEAD') headers['Content-Length'] = String(bytes.byteLength);
    return new Response(bytes, { status: 200, headers });
  }

  // A POST's body limit (413) runs before anything else of the route, as when it was the route's middleware.
  const handler: ScopedHandler = (c, record) => (route.method === 'POST' ? formLimit(c, async () => {}).then(() => begin(c, record)) : begin(c, record));
  handler.setsRequestId = true;
  return handler;
}

/** Tells the audit line who the caller is as soon as access control knows (a refusal is audited with its subject). */
function identifiedIn(record: RequestRecord) {
  return (caller: { subject: string | undefined; patient: string | undefined }) => {
    record.audit = { subject: caller.subject, patient: caller.patient, resources: [] };
  };
}

/** The audit line's subject and patient once a request is admitted: the token's, else the patient asked for. */
function auditAdmitted(record: RequestRecord, request: PreparedRequest): PreparedRequest {
  const { caller } = request.access;
  record.audit = { subject: caller?.subject, patient: caller?.patient ?? request.params.patient, resources: [] };
  return request;
}

/**
 * The runtime's `waitUntil` where it has one (Workers), so a background refresh outlives the
 * request; asked only when a refresh starts: on Node, Hono's `executionCtx` throws (an Error with
 * its stack, which cost 6 % of a hit's CPU when it was asked on every request).
 */
function keepAliveOf(c: Context): KeepAlive {
  return (work) => {
    try {
      c.executionCtx.waitUntil(work);
    } catch {
      // Node: the process outlives every request anyway.
    }
  };
}

/** On Node, the response that says when it has been written (@hono/node-server passes it as `env.outgoing`). */
function writtenSignalOf(c: Context): WrittenSignal | undefined {
  const outgoing = (c.env as { outgoing?: Partial<WrittenSignal> & { writableEnded?: unknown } } | undefined)?.outgoing;
  // writableEnded a boolean: a ServerResponse, not a Workers binding named `outgoing` (an RPC stub answers every property with a function).
  return typeof outgoing?.once === 'function' && typeof outgoing.writableEnded === 'boolean' ? (outgoing as WrittenSignal) : undefined;
}

/** The query string of a request URL as written (without its `?`), without parsing the rest of it. */
function rawQueryOf(url: string): string {
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start + 1);
}

/** The query of a request URL. */
function queryOf(url: string): URLSearchParams {
  return new URLSearchParams(rawQueryOf(url));
}

/** The query string and an `application/x-www-form-urlencoded` body as one parameter list. */
async function queryWithForm(c: Context): Promise<URLSearchParams> {
  const query = queryOf(c.req.url);
  const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  // Bytes, decoded here: bounded by the route's body limit (and workerd warns on text() of a form).
  const body = new TextDecoder().decode(await c.req.arrayBuffer());
  if (body.length === 0) return query;
  if (type !== 'application/x-www-form-urlencoded') {
    throw new FacadeError('unsupported-media-type', 'send parameters as application/x-www-form-urlencoded');
  }
  for (const [name, value] of new URLSearchParams(body)) query.append(name, value);
  return query;
}
