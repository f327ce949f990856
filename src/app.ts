/**
 * The facade as a Hono app: one loop over the route table, each handler in its request's scope
 * (src/request-scope.ts). Runtime-neutral: the Node and edge entries pass in the FHIR client (with
 * their own transport) and a logger.
 */
import { Hono, type Context } from 'hono';
import { METHOD_NAME_ALL } from 'hono/router';
import { TrieRouter } from 'hono/router/trie-router';
import { silentAuditSink, type AuditSink } from './audit.ts';
import { BodyBuffers } from './cache/body-buffers.ts';
import { webHashing, type Hashing } from './ports/hashing.ts';
import type { ResponseCache } from './cache/response-cache.ts';
import { FacadeError, toFacadeError, toOperationOutcome } from './errors.ts';
import { legacyHandler, type LegacyHandlerDeps } from './legacy-handler.ts';
import { silentLogger, type Logger } from './log.ts';
import { Metrics } from './metrics.ts';
import { openApiDocument } from './openapi.ts';
import { passthroughAccess, type AccessControl } from './access/access-control.ts';
import type { PipelineDeps } from './pipeline/legacy-operation.ts';
import type { FallbackKind } from './pipeline/plans/search-plan.ts';
import { UpstreamKnowledge } from './pipeline/plans/upstream-knowledge.ts';
import { ValidatedRequests } from './pipeline/validated-requests.ts';
import type { Readiness } from './readiness.ts';
import { inRequestScope, JSON_TYPE, type ScopedHandler, type ScopeOptions } from './request-scope.ts';
import type { Route } from './route-types.ts';
import { randomHex } from './random-hex.ts';
import { ROUTES } from './routes.ts';
import { servedPaths } from './served-paths.ts';
import { DEFAULT_SITE_CODES, type SiteCodes } from './site-codes.ts';
import { forwardingTracer, type RequestTracer } from './tracing/span.ts';
import type { FhirClient } from './upstream/fhir-client.ts';
import type { StatedLayers } from './upstream/capabilities.ts';
import { UTC_LEGACY_TIME, type LegacyTime } from '../mappers/legacy-time.ts';

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

/** The methods answered 405 by a route of their own on a served path they are not served on; any other method finds the 405 in notFound. */
const STANDARD_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** This process's `/metrics` text: the counters, and the cache's gauges read now (also rendered outside a request by a Node worker, src/entry/node/). */
export function renderMetrics(metrics: Metrics, cache: ResponseCache | undefined): string {
  const held = cache?.stats() ?? { entries: 0, bytes: 0 };
  return metrics.render({
    facade_cache_bytes: { help: 'Bytes of response bodies held by the cache.', value: held.bytes },
    facade_cache_entries: { help: 'Responses held by the cache.', value: held.entries },
  });
}

/** Builds the app for a route table (the real one by default). */
export function createApp(options: AppOptions): Hono {
  const logger = options.logger ?? silentLogger;
  // The old system's Bundle ids are 32 lowercase hex characters without dashes (../shared/LEGACY-WIRE.md).
  const newBundleId = options.newBundleId ?? randomBundleId;
  const access = options.access ?? passthroughAccess;
  const metrics = options.metrics ?? new Metrics();
  const pipeline: PipelineDeps = {
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
  const { cache } = options;
  const hashing = options.hashing ?? webHashing();
  const scope: ScopeOptions = {
    logger,
    metrics,
    audit: options.audit ?? silentAuditSink,
    tracer: options.tracer ?? forwardingTracer,
    maxUrlLength: options.maxUrlLength ?? 8192,
  };
  const scoped = (handler: ScopedHandler) => inRequestScope(scope, handler);
  const app = new Hono();

  const routes = options.routes ?? ROUTES;
  app.get(
    '/healthz',
    scoped((c, record) => {
      record.routeName = 'healthz';
      return c.json({ status: 'ok' });
    }),
  );
  app.get(
    '/readyz',
    scoped(async (c, record) => {
      record.routeName = 'readyz';
      const report = (await options.readiness?.check()) ?? { ready: true, checks: {} };
      return c.json({ status: report.ready ? 'ready' : 'not-ready', checks: report.checks }, report.ready ? 200 : 503, { 'cache-control': 'no-store' });
    }),
  );
  app.get(
    '/metrics',
    scoped((c, record) => {
      record.routeName = 'metrics';
      return c.body(renderMetrics(metrics, cache), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
    }),
  );
  let openApiJson: string | undefined;
  app.get(
    '/openapi.json',
    scoped((c, record) => {
      record.routeName = 'openapi';
      openApiJson ??= JSON.stringify(openApiDocument(routes));
      return c.body(openApiJson, 200, { 'content-type': JSON_TYPE });
    }),
  );

  const legacy: LegacyHandlerDeps = { pipeline, cache, hashing, access, metrics, newBundleId, started: options.started };
  const state = { validated: new ValidatedRequests(), bodyBuffers: new BodyBuffers() };
  const served = servedPaths(routes);
  // Where a path is served, any other method is refused: the interface is read-only.
  const unserved = new TrieRouter<string>();
  for (const path of new Set(served.map((entry) => entry.path))) {
    const onPath = served.filter((entry) => entry.path === path);
    for (const { route } of onPath) app.on(route.method, path, scoped(legacyHandler(route, legacy, state)));
    const methods = new Set<string>(onPath.map(({ route }) => route.method));
    const allow = [...new Set(onPath.flatMap(({ route }) => (route.method === 'GET' ? ['GET', 'HEAD'] : [route.method])))].join(', ');
    // A route per method, not app.all: a GET then matches its one handler, which Hono calls directly.
    const refused = STANDARD_METHODS.filter((method) => !methods.has(method));
    if (refused.length > 0)
      app.on(
        refused,
        path,
        scoped((c) => methodNotAllowed(allow, c)),
      );
    unserved.add(METHOD_NAME_ALL, path, allow);
  }

  const notFound = scoped((c) => {
    // A method outside STANDARD_METHODS on a served path: refused as the others are.
    const allow = unserved.match(c.req.method, c.req.path)[0][0]?.[0];
    if (allow !== undefined) methodNotAllowed(allow, c);
    throw new FacadeError('unknown-path');
  });
  app.notFound((c) => notFound(c, async () => {}));
  // Only what escapes every handler's scope (none is known): answered as the scope would.
  app.onError((error, c) =>
    c.body(JSON.stringify(toOperationOutcome(toFacadeError(error))), toFacadeError(error).status as 400, {
      'content-type': JSON_TYPE,
      'cache-control': 'no-store',
    }),
  );
  return app;
}

/** 405 with the methods the path is served on. */
function methodNotAllowed(allow: string, c?: Context): never {
  c?.header('allow', allow);
  throw new FacadeError('method-not-allowed');
}

/** A fresh Bundle id: 32 lowercase hex characters (128 random bits, as a UUID without its dashes had 122). */
function randomBundleId(): string {
  return randomHex(16);
}
