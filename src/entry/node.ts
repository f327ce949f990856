/**
 * Node entry: `npm start [-- --data DIR]` (compiled, dist/node.js) or `npm run dev` (tsx). Reads the
 * environment once, starts the service, and wires the signals: SIGTERM and SIGINT stop it
 * (src/entry/node/node-service.ts close()), with a last-resort timer in case the stop itself hangs. With
 * WORKERS above 1 this process is the primary of several worker processes (src/entry/node/), and a
 * worker process comes through here too.
 */
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { parseConfig, unknownSettings, type Config } from '../config.ts';
import { jsonAuditSink } from '../audit.ts';
import { jsonLogger } from '../log.ts';
import { startService } from './node/node-service.ts';
import { WORKER_ENV } from './node/cluster-messages.ts';
import { runClusterPrimary } from './node/cluster-primary.ts';
import { runClusterWorker } from './node/cluster-worker.ts';
import { startFailureReport } from './node/start-failure.ts';

const USAGE = `usage: npm start [-- --data DIR]
  Serves the legacy Clinical Records Read Service interface in front of a FHIR R4 server.
  --data DIR   load the FHIR Bundles and NDJSON files of DIR into the embedded upstream
               (instead of the generated patients; not with UPSTREAM_URL)
  --help       this text
  Settings come from the environment: see the README, "Configuration" (PORT, UPSTREAM_URL, WORKERS, …).`;

/** Time the stop gets beyond SHUTDOWN_TIMEOUT_MS before the process exits regardless. */
const LAST_RESORT_MS = 5000;

const logger = jsonLogger();
// One of our own workers is told so by its environment; a worker of another supervisor's cluster
// (PM2's cluster mode) is a single process here: that supervisor does the spreading.
if (cluster.isWorker && process.env[WORKER_ENV.slot] !== undefined) {
  await runClusterWorker();
} else {
  try {
    const { values } = parseArgs({ options: { data: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    const config = parseConfig(process.env);
    const unknown = unknownSettings(process.env);
    if (unknown.length > 0) logger('warn', 'unknown settings ignored (misspelt?)', { variables: unknown.join(',') });
    const workers = config.WORKERS === 'auto' ? availableParallelism() : config.WORKERS;
    if (workers > 1 && cluster.isWorker) logger('warn', 'WORKERS ignored: this process is already a cluster worker of another supervisor');
    if (workers > 1 && cluster.isPrimary) await runClusterPrimary(config, { workers, dataDir: values.data, logger });
    else await runSingleProcess(config, values.data);
  } catch (error) {
    // Mistakes in how the service was started (configuration, arguments, ports, the --data folder)
    // are reported in one line; anything else is a bug and keeps its stack.
    console.error(startFailureReport(error));
    process.exit(1);
  }
}

/** One process serving the port (WORKERS=1, the default; `auto` on a single core). */
async function runSingleProcess(config: Config, dataDir: string | undefined): Promise<void> {
  const service = await startService(config, { dataDir, logger, audit: jsonAuditSink() });
  // Origin and path only: a configured URL may carry credentials in its user-info or query.
  const upstream = new URL(service.upstreamUrl);
  logger('info', 'listening', { url: service.url, upstream: `${upstream.origin}${upstream.pathname}` });
  const stop = (signal: NodeJS.Signals) => {
    const startedAt = Date.now();
    setTimeout(() => {
      logger('error', 'stop did not finish in time; exiting', { signal });
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS + LAST_RESORT_MS).unref();
    void service.close().then(({ unfinished }) => {
      logger('info', 'stopped', { signal, durationMs: Date.now() - startedAt, unfinishedRequests: unfinished });
      process.exit(0);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
