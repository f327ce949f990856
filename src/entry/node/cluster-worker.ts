/**
 * A worker process of the cluster (src/entry/node/cluster-primary.ts): the service as a single
 * process runs it, on the port every worker shares, with the upstream the primary names. It tells
 * the primary when it listens or why its start failed (the primary reports a failed start, once),
 * waits for the primary's word that the embedded data has loaded, and answers `/metrics` with every
 * worker's metrics through the primary. It stops on SIGTERM or SIGINT (from the primary, or from a
 * terminal or a supervisor signalling the whole process group) as the single process does.
 */
import { jsonAuditSink } from '../../audit.ts';
import { parseConfig, type Config } from '../../config.ts';
import { jsonLogger, type Logger } from '../../log.ts';
import { startService, type RunningService } from './node-service.ts';
import { isPrimaryMessage, WORKER_ENV, type WorkerMessage } from './cluster-messages.ts';
import { COLLECT_WAIT_MS, mergeWorkerMetrics } from './cluster-metrics.ts';
import { isStartMistake, startFailureReport } from './start-failure.ts';

/** Time the stop gets beyond SHUTDOWN_TIMEOUT_MS before the worker exits regardless (as the single process's). */
const LAST_RESORT_MS = 5000;

export async function runClusterWorker(): Promise<void> {
  const slot = Number(process.env[WORKER_ENV.slot]);
  const workers = Number(process.env[WORKER_ENV.count]);
  const baseLogger = jsonLogger();
  // Every line says which worker wrote it (its slot: the primary's 'worker started' line gives its pid).
  const logger: Logger = (level, message, fields) => baseLogger(level, message, { ...fields, worker: slot });
  let service: RunningService | undefined;
  let shutdownTimeoutMs = 10_000;

  let upstreamLoaded: (() => void) | undefined;
  const startedWhen = process.env[WORKER_ENV.upstreamLoading] === '1' ? new Promise<void>((resolve) => (upstreamLoaded = resolve)) : undefined;
  const metricsAnswers = new Map<number, (text: string) => void>();
  let nextMetricsId = 1;
  process.on('message', (message: unknown) => {
    if (!isPrimaryMessage(message)) return;
    if (message.type === 'upstream-loaded') upstreamLoaded?.();
    if (message.type === 'metrics-collect') tellPrimary({ type: 'metrics-text', id: message.id, text: service?.metricsText() ?? '' });
    if (message.type === 'metrics-answer') metricsAnswers.get(message.id)?.(message.text);
  });
  /** Every worker's metrics, through the primary; this worker's own if the primary does not answer in time. */
  const metricsAnswer = () =>
    new Promise<string>((resolve) => {
      const id = nextMetricsId++;
      const timer = setTimeout(() => answer(mergeWorkerMetrics([{ worker: slot, text: service?.metricsText() ?? '' }])), COLLECT_WAIT_MS * 2);
      const answer = (text: string) => {
        clearTimeout(timer);
        metricsAnswers.delete(id);
        resolve(text);
      };
      metricsAnswers.set(id, answer);
      tellPrimary({ type: 'metrics-request', id });
    });

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // Not listening yet: nothing to finish.
    if (service === undefined) process.exit(0);
    setTimeout(() => process.exit(1), shutdownTimeoutMs + LAST_RESORT_MS).unref();
    void service.close().then(({ unfinished }) => tellPrimary({ type: 'stopped', unfinished }, () => process.exit(0)));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // When the primary dies, node:cluster ends the worker itself (an unexpected disconnect exits it): none is left behind.

  try {
    // The primary has checked the same environment; the worker reads it again rather than receive it.
    const config = parseConfig(process.env);
    shutdownTimeoutMs = config.SHUTDOWN_TIMEOUT_MS;
    service = await startService(workerShare(config, workers), { logger, audit: jsonAuditSink(), startedWhen, metricsAnswer });
    tellPrimary({ type: 'listening', url: service.url });
  } catch (error) {
    // Reported by the primary (once, whichever worker it came from): nothing is written here.
    tellPrimary({ type: 'start-failed', text: startFailureReport(error), mistake: isStartMistake(error) }, () => process.exit(1));
  }
}

/** Sends to the primary; `then` runs once it is sent (or at once without a channel: the primary is gone). */
function tellPrimary(message: WorkerMessage, then?: () => void): void {
  if (process.connected && process.send) process.send(message, undefined, {}, () => then?.());
  else then?.();
}

/**
 * This worker's share of the limits that protect the upstream: they hold for the whole service
 * (the FHIR server's capacity does not grow with our cores), so each of N workers gets 1/N,
 * rounded up. The cache's bound stays per process: it sizes each process's own memory.
 */
export function workerShare(config: Config, workers: number): Config {
  const share = (limit: number) => Math.max(1, Math.ceil(limit / workers));
  return {
    ...config,
    UPSTREAM_MAX_IN_FLIGHT: share(config.UPSTREAM_MAX_IN_FLIGHT),
    UPSTREAM_MAX_IN_FLIGHT_PER_TYPE: share(config.UPSTREAM_MAX_IN_FLIGHT_PER_TYPE),
  };
}
