/**
 * Cloudflare Workers entry: the same app as on Node, built once per isolate from the Worker's
 * bindings, with the platform `fetch` as transport and a cache per isolate (docs/decisions.md,
 * "Running on Workers"). Nothing here, nor in what it imports, is Node-only.
 */
import type { Hono } from 'hono';
import { createApp } from '../app.ts';
import { responseCacheFor } from '../cache/cache-config.ts';
import { ConfigError, parseConfig, requireUpstream } from '../config.ts';
import { FacadeError, toOperationOutcome } from '../errors.ts';
import { jsonLogger } from '../log.ts';
import { Metrics } from '../metrics.ts';
import { FhirClient } from '../upstream/fhir-client.ts';
import { fetchTransport } from '../upstream/transport.ts';

/** Builds the app from the Worker's bindings: configuration, the platform fetch, a per-isolate cache. */
function buildApp(env: Record<string, unknown>): Hono {
  // Only string bindings (vars and secrets) are configuration.
  const strings = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  const config = parseConfig(strings);
  const metrics = new Metrics();
  const logger = jsonLogger();
  const client = new FhirClient({
    baseUrl: requireUpstream(config),
    transport: fetchTransport(),
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    maxPages: config.UPSTREAM_MAX_PAGES,
    pageSize: config.UPSTREAM_PAGE_SIZE,
    maxBodyBytes: config.UPSTREAM_MAX_BODY_BYTES,
    onUpstreamRequest: (seconds) => metrics.upstreamSeconds.observe(seconds),
  });
  const cache = responseCacheFor(config, metrics, logger);
  return createApp({ client, cache, metrics, logger, maxUrlLength: config.MAX_URL_LENGTH }) as unknown as Hono;
}

/**
 * A Worker handler. The app is built on the isolate's first request and kept: bindings do not change
 * within an isolate, and the cache lives as long as the isolate does.
 */
export function createWorker(): { fetch(request: Request, env: Record<string, unknown>, ctx: unknown): Promise<Response> } {
  let app: Hono | undefined;
  return {
    async fetch(request, env, ctx) {
      try {
        app ??= buildApp(env);
      } catch (error) {
        // A misconfigured Worker still answers as the service does: an OperationOutcome, naming the bad keys.
        const detail = error instanceof ConfigError ? error.problems.join('; ') : undefined;
        const outcome = toOperationOutcome(new FacadeError('internal', detail ? `the service is misconfigured: ${detail}` : undefined));
        return new Response(JSON.stringify(outcome), { status: 500, headers: { 'content-type': 'application/json; charset=utf-8' } });
      }
      return app.fetch(request, env, ctx as never);
    },
  };
}

export default createWorker();
