/**
 * Starts the facade on Node: the embedded FHIR upstream (unless UPSTREAM_URL names one), the undici
 * transport, and the HTTP server. Used by the Node entry and by tests that need the real thing.
 */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { assembleFacade } from './assemble.ts';
import { silentAuditSink, type AuditSink } from './audit.ts';
import { nodeHashing } from './cache/node-hashing.ts';
import type { ResponseCache } from './cache/response-cache.ts';
import { FacadeError, toOperationOutcome } from './errors.ts';
import type { Config } from './config.ts';
import type { EmbeddedFhir, LoadSummary } from './embedded/fhir-server.ts';
import { silentLogger, type Logger } from './log.ts';
import { undiciTransport } from './upstream/undici-transport.ts';

/** The service could not start because of how it was started (arguments, data); not a bug. */
export class StartError extends Error {
  override readonly name = 'StartError';
}

export interface ServiceOptions {
  /** Load every FHIR Bundle and NDJSON file of this folder into the embedded upstream instead of the generated patients. */
  dataDir?: string;
  logger?: Logger;
  /** Where audit lines go; none are written without one (the Node entry writes them to stdout). */
  audit?: AuditSink;
}

export interface RunningService {
  /** e.g. http://127.0.0.1:8080 */
  url: string;
  upstreamUrl: string;
  embedded: EmbeddedFhir | undefined;
  cache: ResponseCache | undefined;
  close(): Promise<void>;
}

export async function startService(config: Config, options: ServiceOptions = {}): Promise<RunningService> {
  const logger = options.logger ?? silentLogger;
  let embedded: EmbeddedFhir | undefined;
  if (config.UPSTREAM_URL === undefined) {
    embedded = await startEmbeddedUpstream(config.EMBEDDED_FHIR_PORT, options.dataDir, logger);
  } else if (options.dataDir !== undefined) {
    throw new StartError('--data loads the embedded upstream; it cannot be combined with UPSTREAM_URL');
  }
  const upstreamUrl = config.UPSTREAM_URL ?? embedded!.baseUrl;
  // As many connections as the bulkhead lets requests through: none ever queues inside undici.
  const transport = undiciTransport({ connections: config.UPSTREAM_MAX_IN_FLIGHT });
  const { app, cache, tracing } = assembleFacade(config, { upstreamUrl, transport, logger, audit: options.audit ?? silentAuditSink, hashing: nodeHashing(), shareCacheLoads: true });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    // Node's header limit is raised above MAX_URL_LENGTH so that a long URL reaches the app and gets
    // its 414; only what is larger still is refused by Node itself (answered in answerClientError).
    const serverOptions = { maxHeaderSize: Math.max(config.MAX_URL_LENGTH * 2, 64 * 1024) };
    const started = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST, serverOptions }, () => resolve(started));
  });
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => answerClientError(error, socket, logger));
  const { port } = server.address() as AddressInfo;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  return {
    url: `http://${host}:${port}`,
    upstreamUrl,
    embedded,
    cache,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tracing.shutdown(); // the spans of the last requests, sent before the process ends
      await transport.close();
      await embedded?.close();
    },
  };
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
 * Imported on demand: with a real upstream, Medplum and its FHIR definitions (~200 MB) are never loaded.
 */
async function startEmbeddedUpstream(port: number, dataDir: string | undefined, logger: Logger): Promise<EmbeddedFhir> {
  const { startEmbeddedFhir } = await import('./embedded/fhir-server.ts');
  const { readDataDir } = await import('./embedded/load-data.ts');
  const { generateSyntheticBundles } = await import('./embedded/seed/generate.ts');
  const embedded = await startEmbeddedFhir({ port });
  try {
    const bundles = dataDir === undefined ? generateSyntheticBundles() : await readDataDir(dataDir);
    const loaded = await embedded.load(bundles);
    logger('info', 'embedded FHIR upstream ready', { baseUrl: embedded.baseUrl, source: dataDir ?? 'generated', resources: totalResources(loaded) });
    return embedded;
  } catch (error) {
    await embedded.close();
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartError(`cannot load ${dataDir === undefined ? 'the generated data' : `--data ${dataDir}`}: ${reason}`, { cause: error });
  }
}

function totalResources(summary: LoadSummary): number {
  return Object.values(summary).reduce((sum, count) => sum + count, 0);
}
