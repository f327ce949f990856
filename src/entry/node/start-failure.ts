/**
 * How a start that failed is reported: a mistake in how the service was started (configuration,
 * arguments, ports, the --data folder) in one line, `Cannot start: …`; anything else is a bug and
 * keeps its stack. Shared by the single process and the cluster's primary and workers, so every
 * mode fails the same way.
 */
import { inspect } from 'node:util';
import { ConfigError } from '../../config.ts';
import { StartError } from './start-error.ts';

export function isStartMistake(error: unknown): error is Error {
  if (error instanceof ConfigError || error instanceof StartError) return true;
  const code = (error as { code?: unknown })?.code;
  return error instanceof Error && typeof code === 'string' && /^(ENOENT|ENOTDIR|EACCES|ERR_PARSE_ARGS_)/.test(code);
}

/** A worker's start failure, reported by the primary as the worker wrote it (already a whole report). */
export class WorkerStartFailure extends Error {
  override readonly name = 'WorkerStartFailure';
  constructor(readonly report: string) {
    super(report);
  }
}

/** What goes to stderr for a failed start: one line for a mistake, the stack for a bug. */
export function startFailureReport(error: unknown): string {
  if (error instanceof WorkerStartFailure) return error.report;
  return isStartMistake(error) ? `Cannot start: ${error.message}` : inspect(error);
}
