/**
 * `WORKERS=auto|N` (N > 1): the primary process of node:cluster. It runs the embedded upstream once
 * (unless UPSTREAM_URL names one) and N worker processes serving the same port
 * (src/entry/node/cluster-worker.ts); it accepts connections and hands them to the workers in turn
 * (node:cluster's round-robin), restarts a worker that dies, answers the workers' metrics requests
 * with every worker's metrics, and stops them all on SIGTERM or SIGINT. Its start fails as the single
 * process's does: one line, exit 1, with the ports bound before any data is loaded.
 */
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import { loadEmbeddedData, startEmbeddedUpstream, StartError } from './node-service.ts';
import { MetricsCollector } from './cluster-metrics.ts';
import { WorkerPool } from './worker-pool.ts';

/** Time the stop gets beyond SHUTDOWN_TIMEOUT_MS before the primary kills what is left and exits 1. */
const LAST_RESORT_MS = 5000;

export interface ClusterOptions {
  workers: number;
  /** `--data DIR`: loaded into the embedded upstream (here, once). */
  dataDir: string | undefined;
  logger: Logger;
}

export async function runClusterPrimary(config: Config, options: ClusterOptions): Promise<void> {
  const { logger, workers } = options;
  if (config.UPSTREAM_URL !== undefined && options.dataDir !== undefined) {
    throw new StartError('--data loads the embedded upstream; it cannot be combined with UPSTREAM_URL');
  }
  // Bound first (a port in use fails before any worker starts); the data loads once the workers listen.
  const embedded = config.UPSTREAM_URL === undefined ? await startEmbeddedUpstream(config.EMBEDDED_FHIR_PORT) : undefined;
  const upstreamUrl = config.UPSTREAM_URL ?? embedded!.baseUrl;
  let collector: MetricsCollector | undefined;
  const pool = new WorkerPool({
    count: workers,
    // The workers' upstream is the embedded one here, as if configured: none of them starts its own.
    env: embedded === undefined ? {} : { UPSTREAM_URL: embedded.baseUrl },
    upstreamLoading: embedded !== undefined,
    logger,
    onMessage: (slot, message) => {
      if (message.type === 'metrics-text') collector?.receive(slot, message.id, message.text);
      if (message.type === 'metrics-request') {
        void collector?.collect().then((text) => pool.send(slot, { type: 'metrics-answer', id: message.id, text }));
      }
    },
  });
  collector = new MetricsCollector(pool);

  let url: string;
  try {
    url = await pool.start();
    if (embedded) {
      await loadEmbeddedData(embedded, options.dataDir, logger);
      pool.upstreamLoaded();
    }
  } catch (error) {
    await pool.stop();
    await embedded?.close();
    throw error;
  }
  // Origin and path only: a configured URL may carry credentials in its user-info or query.
  const upstream = new URL(upstreamUrl);
  logger('info', 'listening', { url, upstream: `${upstream.origin}${upstream.pathname}`, workers });

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const startedAt = Date.now();
    setTimeout(() => {
      logger('error', 'stop did not finish in time; exiting', { signal });
      pool.kill();
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS + LAST_RESORT_MS).unref();
    // The workers drain first, while the embedded upstream still answers their requests in progress.
    void pool.stop().then(async ({ unfinished }) => {
      await embedded?.close();
      logger('info', 'stopped', { signal, durationMs: Date.now() - startedAt, unfinishedRequests: unfinished, workers });
      process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
