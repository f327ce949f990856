/**
 * The facade as a Hono app: middleware, then one loop over the route table. Runtime-neutral: the
 * Node and edge entries pass in the FHIR client (with their own transport) and a logger.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { silentAuditSink, type AuditSink } from './audit.ts';
import { FacadeError, toFacadeError, toOperationOutcome } from './errors.ts';
import { silentLogger, type Logger } from './log.ts';
import { passthroughAccess, type AccessControl } from './access/access-control.ts';
import { callerToken } from './access/token-policy.ts';
import { canonicalRequestKey, prepareRequest, runRequest, type PipelineDeps } from './pipeline/legacy-operation.ts';
import { callerKey, etagMatches, renderBody, storedBody, webHashing, type Hashing } from './cache/cache-key.ts';
import type { CacheOutcome, KeepAlive, ResponseCache, StoredBody } from './cache/response-cache.ts';
import { Metrics } from './metrics.ts';
import type { Route } from './route-types.ts';
import { ROUTES } from './routes.ts';
import { servedPaths } from './served-paths.ts';
import { openApiDocument } from './openapi.ts';
import type { FhirClient } from './upstream/fhir-client.ts';
import { UpstreamKnowledge } from './pipeline/plans/upstream-knowledge.ts';
import type { FallbackKind } from './pipeline/plans/search-plan.ts';
import { DEFAULT_SITE_CODES, type SiteCodes } from './site-codes.ts';
import type { StatedLayers } from './upstream/capabilities.ts';
import { UTC_LEGACY_TIME, type LegacyTime } from '../mappers/legacy-time.ts';
import type { Readiness } from './readiness.ts';
import { forwardingTracer, inChildSpan, type RequestTracer, type Span } from './tracing/span.ts';
import { endRequestSpan } from './tracing/request-span.ts';

export interface AppOptions {
  client: FhirClient;
  /** The response cache; without one every request goes upstream. */
  cache?: ResponseCache;
  /** Token and body hashing for cache keys and ETags (Web Crypto by default; native on Node). */
  hashing?: Hashing;
  metrics?: Metrics;
  logger?: Logger;
  /** Who may read what (passthrough by default: the upstream judges the caller's token). */
  access?: AccessControl;
  /** Where the audit line of each legacy-route request goes (separate from the access log). */
  audit?: AuditSink;
  routes?: readonly Route[];
  /** The site's codes for the route table's selectors (today's codes by default). */
  siteCodes?: SiteCodes;
  /** What the site and its upstream profile state beyond the CapabilityStatement (nothing by default). */
  upstreamStated?: StatedLayers;
  /** Longest request URL accepted; longer ones get 414. */
  maxUrlLength?: number;
  newBundleId?: () => string;
  /** The old system's forms of time in the site's zone (UTC by default). */
  legacyTime?: LegacyTime;
  /** What `/readyz` reports (ready whenever asked, without one). */
  readiness?: Readiness;
  /** False while the service is still starting: legacy operations answer 503 until then (src/entry/node/node-service.ts). */
  started?: () => boolean;
  /** Told each fallback a plan uses (besides /metrics), e.g. to attribute them to a request (scripts/check-upstream.ts). */
  onFallback?: (kind: FallbackKind, value: string) => void;
  /** Starts each request's span (src/tracing/); by default nothing is recorded and a caller's trace context is forwarded upstream. */
  tracer?: RequestTracer;
}

/** Largest `POST …/_search` form body accepted. */
const MAX_FORM_BODY_BYTES = 64 * 1024;
const JSON_TYPE = 'application/json; charset=utf-8';

/** What the middleware and handlers share about one request (for its log line). */
type FacadeEnv = {
  Variables: {
    requestId: string;
    routeName: string;
    upstreamPages: number;
    cache: CacheOutcome;
    /** The request's span, when it has one (tracing on, or a caller's context to forward). */
    span: Span | undefined;
    /** Set on legacy routes only: what the audit line of the request says. */
    audit: { subject: string | undefined; patient: string | undefined; resources: readonly string[] };
  };
};

/** This process's `/metrics` text: the counters, and the cache's gauges read now (also rendered outside a request by a Node worker, src/entry/node/). */
export function renderMetrics(metrics: Metrics, cache: ResponseCache | undefined): string {
  const held = cache?.stats() ?? { entries: 0, bytes: 0 };
  return metrics.render({
    facade_cache_bytes: { help: 'Bytes of response bodies held by the cache.', value: held.bytes },
    facade_cache_entries: { help: 'Responses held by the cache.', value: held.entries },
  });
}

/** Builds the app for a route table (the real one by default). */
export function createApp(options: AppOptions): Hono<FacadeEnv> {
  const logger = options.logger ?? silentLogger;
  const maxUrlLength = options.maxUrlLength ?? 8192;
  // The old system's Bundle ids are 32 lowercase hex characters without dashes (../shared/LEGACY-WIRE.md).
  const newBundleId = options.newBundleId ?? (() => crypto.randomUUID().replaceAll('-', ''));
  const access = options.access ?? passthroughAccess;
  const auditSink = options.audit ?? silentAuditSink;
  const deps: PipelineDeps = {
    client: options.client,
    knowledge: new UpstreamKnowledge(options.client, options.upstreamStated),
    siteCodes: options.siteCodes ?? DEFAULT_SITE_CODES,
    newBundleId,
    legacyTime: options.legacyTime ?? UTC_LEGACY_TIME,
    upstream: access.upstream,
    onFallback: (kind, value) => {
      metrics.upstreamFallbacks.inc({ kind, value });
      options.onFallback?.(kind, value);
    },
  };
  const metrics = options.metrics ?? new Metrics();
  const { cache } = options;
  const hashing = options.hashing ?? webHashing();
  const tracer = options.tracer ?? forwardingTracer;
  const app = new Hono<FacadeEnv>();

  app.use(async (c, next) => {
    const started = performance.now();
    const requestId = crypto.randomUUID();
    c.set('requestId', requestId);
    c.header('x-request-id', requestId);
    const span = tracer.startRequest(c.req.header('traceparent'), c.req.header('tracestate'));
    c.set('span', span);
    await next();
    const route = c.get('routeName') ?? 'unmatched';
    metrics.requests.inc({ route, status: String(c.res.status) });
    // Only the route's name is logged, never the URL: its query holds the token and patient ids.
    logger('info', 'request', {
      requestId,
      method: c.req.method,
      route,
      status: c.res.status,
      durationMs: Math.round(performance.now() - started),
      cache: c.get('cache'),
      upstreamCalls: c.get('upstreamPages'),
      traceId: span?.traceId,
    });
    const audit = c.get('audit');
    if (audit !== undefined) {
      auditSink({ requestId, route, method: c.req.method, status: c.res.status, ...audit, cache: c.get('cache') });
    }
    if (span !== undefined) {
      const errorCode = c.error === undefined || !span.recording ? undefined : toFacadeError(c.error).code;
      endRequestSpan(span, { method: c.req.method, route, status: c.res.status, requestId, cache: c.get('cache'), upstreamPages: c.get('upstreamPages'), errorCode });
    }
  });

  app.use(async (c, next) => {
    if (c.req.url.length > maxUrlLength) throw new FacadeError('uri-too-long', `at most ${maxUrlLength} characters`);
    await next();
  });

  const routes = options.routes ?? ROUTES;
  app.get('/healthz', (c) => {
    c.set('routeName', 'healthz');
    return c.json({ status: 'ok' });
  });
  app.get('/readyz', async (c) => {
    c.set('routeName', 'readyz');
    const report = (await options.readiness?.check()) ?? { ready: true, checks: {} };
    return c.json({ status: report.ready ? 'ready' : 'not-ready', checks: report.checks }, report.ready ? 200 : 503, { 'cache-control': 'no-store' });
  });
  app.get('/metrics', (c) => {
    c.set('routeName', 'metrics');
    return c.body(renderMetrics(metrics, cache), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
  });
  let openApiJson: string | undefined;
  app.get('/openapi.json', (c) => {
    c.set('routeName', 'openapi');
    openApiJson ??= JSON.stringify(openApiDocument(routes));
    return c.body(openApiJson, 200, { 'content-type': JSON_TYPE });
  });

  const served = servedPaths(routes);
  const formLimit = bodyLimit({
    maxSize: MAX_FORM_BODY_BYTES,
    onError: () => {
      throw new FacadeError('payload-too-large', `at most ${MAX_FORM_BODY_BYTES} bytes`);
    },
  });
  for (const path of new Set(served.map((entry) => entry.path))) {
    const onPath = served.filter((entry) => entry.path === path);
    for (const { route } of onPath) {
      if (route.method === 'POST') app.post(path, formLimit);
      app.on(route.method, path, async (c) => {
        c.set('routeName', route.name);
        // Until the start has finished (the embedded data loading) an answer could miss records: none is given.
        if (options.started?.() === false) throw new FacadeError('service-starting', undefined, { retryAfterSeconds: 5 });
        c.set('audit', { subject: undefined, patient: undefined, resources: [] });
        const query = route.method === 'POST' ? await queryWithForm(c) : queryOf(c.req.url);
        const token = callerToken(query, c.req.header('authorization'));
        // Admitted before the cache: a cached answer is served only to a caller that passes the checks now.
        const prepared = await access.admit(prepareRequest(route, { query, id: c.req.param('id'), token }), (caller) =>
          c.set('audit', { subject: caller.subject, patient: caller.patient, resources: [] }),
        );
        const { caller } = prepared.access;
        c.set('audit', { subject: caller?.subject, patient: caller?.patient ?? prepared.params.patient, resources: [] });
        // The upstream calls and the mapping of a load are recorded under the cache's span when there is a cache.
        const load = async (trace: Span | undefined): Promise<StoredBody> => {
          const result = await runRequest(prepared, deps, trace);
          c.set('upstreamPages', result.upstreamPages);
          metrics.upstreamPages.observe(result.upstreamPages);
          return { ...(await storedBody(JSON.stringify(result.payload), hashing.digest)), resourceIds: result.resourceIds };
        };
        const { body, outcome } = cache
          ? await inChildSpan(c.get('span'), 'cache', async (span) => {
              // The token goes with the key: a shared tier seals the entry for this caller (src/cache/sealed-tier.ts).
              const found = await cache.get(`${await callerKey(hashing, token)}|${canonicalRequestKey(prepared)}`, () => load(span), keepAliveOf(c), token);
              if (span?.recording) span.set('facade.cache.outcome', found.outcome);
              return found;
            })
          : { body: await load(c.get('span')), outcome: 'bypass' as const };
        c.set('cache', outcome);
        c.set('audit', { ...c.get('audit'), resources: body.resourceIds ?? [] });
        metrics.cacheEvents.inc({ outcome });
        // private: the body is one patient's data for one caller; no shared cache may keep it.
        const headers = { etag: body.etag, 'cache-control': 'private, no-cache', vary: 'Authorization' };
        if (route.method === 'GET' && etagMatches(c.req.header('if-none-match'), body.etag)) return c.body(null, 304, headers);
        return c.body(renderBody(body, newBundleId), 200, { ...headers, 'content-type': JSON_TYPE });
      });
    }
    // Any other method on a served path: the interface is read-only.
    const allow = [...new Set(onPath.flatMap(({ route }) => (route.method === 'GET' ? ['GET', 'HEAD'] : [route.method])))].join(', ');
    app.all(path, (c) => {
      c.header('allow', allow);
      throw new FacadeError('method-not-allowed');
    });
  }

  app.notFound(() => {
    throw new FacadeError('unknown-path');
  });
  app.onError((error, c) => {
    const facadeError = toFacadeError(error);
    if (facadeError.status >= 500) {
      // The kind of failure (`connection-refused`, `http-503`, `not-json`, …), else the class of what was thrown: never a message, which may hold a URL or a body.
      const cause = facadeError.reason ?? (facadeError.cause instanceof Error ? facadeError.cause.name : undefined);
      logger('error', 'request failed', { requestId: c.get('requestId'), route: c.get('routeName'), code: facadeError.code, cause });
    }
    // A 503 says when to come back (docs/decisions.md, "Upstream resilience").
    if (facadeError.retryAfterSeconds !== undefined) c.header('retry-after', String(facadeError.retryAfterSeconds));
    // Headers set before the throw (the 405's Allow, x-request-id) are kept by c.body.
    // no-store: an error may answer a URL that carries a token; no cache of any kind keeps it.
    return c.body(JSON.stringify(toOperationOutcome(facadeError)), facadeError.status as 400, { 'content-type': JSON_TYPE, 'cache-control': 'no-store' });
  });
  return app;
}

/** The runtime's `waitUntil` where it has one (Workers), so a background refresh outlives the request. */
function keepAliveOf(c: Context<FacadeEnv>): KeepAlive | undefined {
  try {
    const executionContext = c.executionCtx;
    return (work) => executionContext.waitUntil(work);
  } catch {
    return undefined; // Node: the process outlives every request anyway
  }
}

/** The query of a request URL, without parsing the rest of it (on every request). */
function queryOf(url: string): URLSearchParams {
  const start = url.indexOf('?');
  return new URLSearchParams(start === -1 ? '' : url.slice(start + 1));
}

/** The query string and an `application/x-www-form-urlencoded` body as one parameter list. */
async function queryWithForm(c: Context<FacadeEnv>): Promise<URLSearchParams> {
  const query = queryOf(c.req.url);
  const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  // Bytes, decoded here: bounded by the bodyLimit middleware (and workerd warns on text() of a form).
  const body = new TextDecoder().decode(await c.req.arrayBuffer());
  if (body.length === 0) return query;
  if (type !== 'application/x-www-form-urlencoded') {
    throw new FacadeError('unsupported-media-type', 'send parameters as application/x-www-form-urlencoded');
  }
  for (const [name, value] of new URLSearchParams(body)) query.append(name, value);
  return query;
}
