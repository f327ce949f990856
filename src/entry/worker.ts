/**
 * Cloudflare Workers entry: the same app as on Node, built once per isolate from the Worker's
 * bindings, with the platform `fetch` as transport and a cache per isolate (docs/decisions.md,
 * "Running on Workers"). Nothing here, nor in what it imports, is Node-only.
 */
import { assembleFacade, type Facade } from '../assemble.ts';
import { ConfigError, parseConfig, requireUpstream } from '../config.ts';
import { FacadeError, toOperationOutcome } from '../errors.ts';
import { jsonAuditSink } from '../audit.ts';
import { jsonLogger, type Logger } from '../log.ts';
import { fetchTransport } from '../upstream/transport.ts';
import { defaultEdgeCache, edgeCacheTier } from './edge-cache-tier.ts';

/**
 * Builds the facade from the Worker's bindings: configuration, the platform fetch, a per-isolate
 * cache and, with CACHE_SECRET bound, the data centre's Cache API behind it, keyed on `origin`.
 */
function buildFacade(env: Record<string, unknown>, logger: Logger, origin: string): Facade {
  // Only string bindings (vars and secrets) are configuration.
  const strings = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  const config = parseConfig(strings);
  if (config.CACHE_REDIS_URL !== undefined)
    throw new ConfigError(['CACHE_REDIS_URL: not on Workers (the shared tier here is the Cache API, on with CACHE_SECRET)']);
  const edgeCache = config.CACHE_SECRET === undefined ? undefined : defaultEdgeCache();
  // Loads are not shared across requests here, nor are spans sent on a timer: a request's I/O and timers die with it in workerd.
  return assembleFacade(config, {
    upstreamUrl: requireUpstream(config),
    transport: fetchTransport(),
    logger,
    audit: jsonAuditSink(),
    shareCacheLoads: false,
    timersOutliveRequests: false,
    sharedTier: edgeCache === undefined ? undefined : edgeCacheTier(edgeCache, new URL(origin).origin),
  });
}

/**
 * A Worker handler. The app is built on the isolate's first request and kept: bindings do not change
 * within an isolate, and the cache lives as long as the isolate does.
 */
export function createWorker(logger: Logger = jsonLogger()): { fetch(request: Request, env: Record<string, unknown>, ctx: unknown): Promise<Response> } {
  let facade: Facade | undefined;
  let misconfigured = false;
  return {
    async fetch(request, env, ctx) {
      try {
        facade ??= buildFacade(env, logger, request.url);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        // The operator reads what is wrong in the log (once per isolate); a caller learns nothing of
        // the configuration, only that the service is unavailable, as the OperationOutcome of a 503.
        if (!misconfigured) logger('error', 'invalid configuration: every request is answered 503', { problems: error.problems.join('; ') });
        misconfigured = true;
        const outcome = toOperationOutcome(new FacadeError('service-unavailable'));
        return new Response(JSON.stringify(outcome), {
          status: 503,
          headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
        });
      }
      const response = await facade.app.fetch(request, env, ctx as never);
      // The request's spans are sent after the answer, kept alive by the runtime (nothing to send with tracing off).
      const waitUntil = (ctx as { waitUntil?: (work: Promise<unknown>) => void } | undefined)?.waitUntil;
      if (facade.tracing.recording && typeof waitUntil === 'function') waitUntil.call(ctx, facade.tracing.flush());
      return response;
    },
  };
}

export default createWorker();
