/**
 * What the primary and its worker processes tell each other over the cluster's IPC channel (and
 * the environment a worker is started with). Nothing here carries request data: only start and stop
 * states, counts and the metrics text.
 */

/** A worker to its primary. */
export type WorkerMessage =
  /** Its server listens (on the port every worker shares). */
  | { type: 'listening'; url: string }
  /** Its start failed: `mistake` (how it was started: a port, a setting) or a bug, whose `text` is the stack. */
  | { type: 'start-failed'; text: string; mistake: boolean }
  /** It has stopped; `unfinished` requests were cut at the deadline. */
  | { type: 'stopped'; unfinished: number }
  /** A `/metrics` request arrived: the primary answers with every worker's text (`metrics-answer`). */
  | { type: 'metrics-request'; id: number }
  /** Its own metrics text, asked for by `metrics-collect`. */
  | { type: 'metrics-text'; id: number; text: string };

/** The primary to a worker. */
export type PrimaryMessage =
  /** The embedded upstream's data has loaded: the legacy operations may be served. */
  { type: 'upstream-loaded' } | { type: 'metrics-collect'; id: number } | { type: 'metrics-answer'; id: number; text: string };

/** Environment variables the primary sets for a worker (not settings: an operator never sets them). */
export const WORKER_ENV = {
  /** The worker's slot, 1…N: a replacement takes the slot of the worker it replaces. */
  slot: 'FACADE_WORKER_SLOT',
  /** How many workers there are (each takes its share of the upstream limits). */
  count: 'FACADE_WORKER_COUNT',
  /** Set to 1 while the embedded upstream's data is still loading: wait for `upstream-loaded`. */
  upstreamLoading: 'FACADE_UPSTREAM_LOADING',
} as const;

const WORKER_TYPES = new Set(['listening', 'start-failed', 'stopped', 'metrics-request', 'metrics-text']);
const PRIMARY_TYPES = new Set(['upstream-loaded', 'metrics-collect', 'metrics-answer']);

export function isWorkerMessage(message: unknown): message is WorkerMessage {
  return typeof message === 'object' && message !== null && WORKER_TYPES.has((message as { type?: unknown }).type as string);
}

export function isPrimaryMessage(message: unknown): message is PrimaryMessage {
  return typeof message === 'object' && message !== null && PRIMARY_TYPES.has((message as { type?: unknown }).type as string);
}
