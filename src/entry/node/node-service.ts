/**
 * Starts the facade on Node: the embedded FHIR upstream (unless UPSTREAM_URL names one), the undici
 * transport, and the HTTP server; and stops it (close()). Used by the Node entry and by tests that
 * need the real thing. Both ports are bound before the embedded data loads, so a port in use fails
 * the start at once; until the data has loaded, the legacy operations answer 503 and /readyz too.
 */
import { createAdaptorServer } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { renderMetrics } from '../../app.ts';
import { assembleFacade } from '../../assemble.ts';
import { silentAuditSink, type AuditSink } from '../../audit.ts';
import { nodeEntryCipher } from './cache/node-entry-cipher.ts';
import { nodeHashing } from './cache/node-hashing.ts';
import type { ResponseCache } from '../../cache/response-cache.ts';
import { FacadeError, toOperationOutcome } from '../../errors.ts';
import type { Config } from '../../config.ts';
import type { EmbeddedFhir, LoadSummary } from '../../embedded/fhir-server.ts';
import { silentLogger, type Logger } from '../../log.ts';
import { listen, trackConnections } from './node-http-server.ts';
import { StartError } from './start-error.ts';
import { undiciTransport } from './upstream/undici-transport.ts';

export { StartError };

export interface ServiceOptions {
  /** Load every FHIR Bundle and NDJSON file of this folder into the embedded upstream instead of the generated patients. */
  dataDir?: string;
  logger?: Logger;
  /** Where audit lines go; none are written without one (the Node entry writes them to stdout). */
  audit?: AuditSink;
  /**
   * The legacy operations and `/readyz` wait for this as they wait for the embedded data: a worker
   * process whose upstream is the primary's embedded one, still loading (src/entry/node/).
   */
  startedWhen?: Promise<void>;
  /** `/metrics` answers this text rather than this process's own: a worker answers every worker's (src/entry/node/). */
  metricsAnswer?: () => Promise<string>;
}

export interface RunningService {
  /** e.g. http://127.0.0.1:8080 */
  url: string;
  upstreamUrl: string;
  embedded: EmbeddedFhir | undefined;
  cache: ResponseCache | undefined;
  /** This process's `/metrics` text, rendered now. */
  metricsText(): string;
  /**
   * Stops: no new connections, idle and half-sent ones closed, requests in progress finished
   * within SHUTDOWN_TIMEOUT_MS (cut after it), the cache's refreshes settled, then the upstream
   * connections and the embedded server closed. Resolves with the number of requests cut.
   */
  close(): Promise<{ unfinished: number }>;
}

export async function startService(config: Config, options: ServiceOptions = {}): Promise<RunningService> {
  const logger = options.logger ?? silentLogger;
  if (config.UPSTREAM_URL !== undefined && options.dataDir !== undefined) {
    throw new StartError('--data loads the embedded upstream; it cannot be combined with UPSTREAM_URL');
  }
  const embedded = config.UPSTREAM_URL === undefined ? await startEmbeddedUpstream(config.EMBEDDED_FHIR_PORT) : undefined;
  const upstreamUrl = config.UPSTREAM_URL ?? embedded!.baseUrl;
  let started = embedded === undefined && options.startedWhen === undefined;
  void options.startedWhen?.then(() => {
    started = true;
  });
  // As many connections as the bulkhead lets requests through: none ever queues inside undici.
  const transport = undiciTransport({ connections: config.UPSTREAM_MAX_IN_FLIGHT });
  // Shared by every process and instance on the same Redis; it connects in the background (a Redis
  // that is down delays nothing). Imported on demand: the client takes ~0.1 s to load, for nothing without one.
  const sharedTier =
    config.CACHE_REDIS_URL === undefined
      ? undefined
      : (await import('./cache/redis-tier.ts')).redisTier({ url: config.CACHE_REDIS_URL, commandTimeoutMs: config.CACHE_L2_TIMEOUT_MS });
  const { app, cache, metrics, tracing } = assembleFacade(config, {
    upstreamUrl,
    transport,
    logger,
    audit: options.audit ?? silentAuditSink,
    hashing: nodeHashing(config.CACHE_SECRET),
    sharedTier,
    entrySealing: nodeEntryCipher,
    shareCacheLoads: true,
    started: () => started,
  });
  // Node's header limit is raised above MAX_URL_LENGTH so that a long URL reaches the app and gets
  // its 414; only what is larger still is refused by Node itself (answered in answerClientError).
  const server = createAdaptorServer({
    fetch: withMetricsAnswer(app.fetch, options.metricsAnswer),
    serverOptions: { maxHeaderSize: Math.max(config.MAX_URL_LENGTH * 2, 64 * 1024) },
  }) as Server;
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => answerClientError(error, socket, logger));
  const connections = trackConnections(server);
  /** Closes the upstream side: gently while time is left, at once after the stop's deadline. */
  const stopUpstream = async (deadlineAt = 0) => {
    await (Date.now() < deadlineAt ? transport.close() : transport.destroy());
    await sharedTier?.close?.();
    await embedded?.close();
  };
  try {
    await listen(server, { port: config.PORT, host: config.HOST, portName: 'PORT', hostName: 'HOST' });
    if (embedded) {
      await loadEmbeddedData(embedded, options.dataDir, logger);
      started = true;
    }
  } catch (error) {
    if (server.listening) await connections.close(0);
    await stopUpstream();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  return {
    url: `http://${host}:${port}`,
    upstreamUrl,
    embedded,
    cache,
    metricsText: () => renderMetrics(metrics, cache),
    async close() {
      // One deadline for the whole stop: what is still running at it is cut.
      const deadlineAt = Date.now() + config.SHUTDOWN_TIMEOUT_MS;
      const outcome = await connections.close(config.SHUTDOWN_TIMEOUT_MS);
      // Background refreshes of stale entries (and shared-tier writes) were started by requests: let them end before their transport does.
      if (cache) await withDeadline(cache.settle(), deadlineAt);
      // The spans of the last requests, sent before the process ends.
      await withDeadline(tracing.shutdown(), deadlineAt);
      await stopUpstream(deadlineAt);
      return outcome;
    },
  };
}

/**
 * `/metrics` answered with `answer()` instead of this process's text, once the app has answered it
 * (so the request is still counted, logged and given its headers as any other).
 */
function withMetricsAnswer<Rest extends unknown[]>(
  fetch: (request: Request, ...rest: Rest) => Response | Promise<Response>,
  answer: (() => Promise<string>) | undefined,
) {
  if (answer === undefined) return fetch;
  return async (request: Request, ...rest: Rest): Promise<Response> => {
    const response = await fetch(request, ...rest);
    if (response.status !== 200 || new URL(request.url).pathname !== '/metrics') return response;
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(await answer(), { status: 200, headers });
  };
}

/** Waits for `work` until `deadlineAt` at most (the work itself is not stopped). */
async function withDeadline(work: Promise<unknown>, deadlineAt: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadlineAt - Date.now()));
  });
  await Promise.race([
    work.then(
      () => undefined,
      () => undefined,
    ),
    timeout,
  ]);
  clearTimeout(timer);
}

/**
 * Requests Node rejects before the app sees them (a URL past Node's header limit, a malformed
 * request line) still get an OperationOutcome, not Node's bare status line, with the headers every
 * error carries (`no-store`: the refused request may carry a token; an `x-request-id`) and a log line.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex, logger: Logger): void {
  if (!socket.writable) return;
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const failure = new FacadeError(tooLarge ? 'headers-too-large' : 'bad-request');
  const body = JSON.stringify(toOperationOutcome(failure));
  const requestId = crypto.randomUUID();
  socket.end(
    `HTTP/1.1 ${failure.status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `cache-control: no-store\r\nx-request-id: ${requestId}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  // As the app's request line, less what Node never parsed (no method, no route).
  logger('info', 'request', { requestId, route: 'rejected-by-http-server', status: failure.status, code: failure.code });
}

/**
 * Imported on demand: with a real upstream, Medplum and its FHIR definitions (~200 MB) are never
 * loaded. Listens at once (a port in use fails before any data is read); the data comes after.
 */
export async function startEmbeddedUpstream(port: number): Promise<EmbeddedFhir> {
  const { startEmbeddedFhir } = await import('../../embedded/fhir-server.ts');
  try {
    return await startEmbeddedFhir({ port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new StartError(`EMBEDDED_FHIR_PORT: port ${port} on 127.0.0.1 is already in use`);
    if (code === 'EACCES') throw new StartError(`EMBEDDED_FHIR_PORT: no permission to listen on port ${port}`);
    throw error;
  }
}

export async function loadEmbeddedData(embedded: EmbeddedFhir, dataDir: string | undefined, logger: Logger): Promise<void> {
  const { readDataDir } = await import('../../embedded/load-data.ts');
  const { generateSyntheticBundles } = await import('../../embedded/seed/generate.ts');
  try {
    const bundles = dataDir === undefined ? generateSyntheticBundles() : await readDataDir(dataDir);
    const loaded = await embedded.load(bundles);
    logger('info', 'embedded FHIR upstream ready', { baseUrl: embedded.baseUrl, source: dataDir ?? 'generated', resources: totalResources(loaded) });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartError(`cannot load ${dataDir === undefined ? 'the generated data' : `--data ${dataDir}`}: ${reason}`, { cause: error });
  }
}

function totalResources(summary: LoadSummary): number {
  return Object.values(summary).reduce((sum, count) => sum + count, 0);
}
