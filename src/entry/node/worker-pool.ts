/**
 * The primary's worker processes (node:cluster): N slots, each holding one worker serving the shared
 * port. It forks them, forwards their log lines, restarts one that exits (with a backoff), and stops
 * them all. A replacement takes the slot of the worker it replaces, so the slot numbers in log lines
 * and metrics stay 1…N.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Readable } from 'node:stream';
import type { Logger } from '../../log.ts';
import { isWorkerMessage, WORKER_ENV, type PrimaryMessage, type WorkerMessage } from './cluster-messages.ts';
import { RestartBackoff } from './restart-backoff.ts';
import { WorkerStartFailure } from './start-failure.ts';

export interface WorkerPoolOptions {
  count: number;
  /** Environment each worker gets on top of the primary's (the embedded upstream's URL). */
  env: Record<string, string>;
  /** Whether the embedded upstream's data is still to load: workers wait for `upstreamLoaded()`. */
  upstreamLoading: boolean;
  logger: Logger;
  /** Messages the pool does not handle itself (the metrics exchange). */
  onMessage: (slot: number, message: WorkerMessage) => void;
}

interface Slot {
  readonly id: number;
  readonly backoff: RestartBackoff;
  worker: Worker | undefined;
  pid: number | undefined;
  forkedAt: number;
  listening: boolean;
  /** What the current worker reported of a failed start. */
  startFailure: { text: string; mistake: boolean } | undefined;
  /** How the last worker of the slot ended (a worker that never listened, while the pool starts). */
  ended: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  unfinished: number;
  restarts: number;
  restartTimer: NodeJS.Timeout | undefined;
  /** Settles once the current worker has exited and its output has been forwarded. */
  closed: Promise<void>;
}

export class WorkerPool {
  private readonly slots: Slot[];
  private phase: 'starting' | 'running' | 'stopping' = 'starting';
  private upstreamLoading: boolean;
  private url: string | undefined;
  private started: { resolve: (url: string) => void; reject: (error: Error) => void } | undefined;

  constructor(private readonly options: WorkerPoolOptions) {
    this.upstreamLoading = options.upstreamLoading;
    // Workers take no arguments (--data is the primary's); their stdout comes through the primary,
    // which writes whole lines only: lines of several processes never interleave, audit lines included.
    cluster.setupPrimary({ args: [], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    this.slots = Array.from({ length: options.count }, (_, index) => ({
      id: index + 1,
      backoff: new RestartBackoff(),
      worker: undefined,
      pid: undefined,
      forkedAt: 0,
      listening: false,
      startFailure: undefined,
      ended: undefined,
      unfinished: 0,
      restarts: 0,
      restartTimer: undefined,
      closed: Promise.resolve(),
    }));
  }

  /**
   * Forks every worker and waits until each listens or has failed: resolves with the service's URL
   * when one listens at least (the others are restarted), rejects with the first failure when all fail.
   */
  start(): Promise<string> {
    const started = new Promise<string>((resolve, reject) => {
      this.started = { resolve, reject };
    });
    for (const slot of this.slots) this.fork(slot);
    return started;
  }

  /** The embedded upstream's data has loaded: workers serve the legacy operations from now on. */
  upstreamLoaded(): void {
    this.upstreamLoading = false;
    for (const slot of this.slots) if (slot.listening) this.send(slot.id, { type: 'upstream-loaded' });
  }

  /** Slots whose worker listens now. */
  listeningSlots(): number[] {
    return this.slots.filter((slot) => slot.worker !== undefined && slot.listening).map((slot) => slot.id);
  }

  /** Restarts so far, by slot. */
  restarts(): Map<number, number> {
    return new Map(this.slots.map((slot) => [slot.id, slot.restarts]));
  }

  send(slotId: number, message: PrimaryMessage): void {
    const worker = this.slots[slotId - 1]?.worker;
    // A worker exiting may have closed its channel already: it needs no answer then.
    if (worker?.isConnected()) worker.send(message, undefined, () => undefined);
  }

  /**
   * Stops every worker (SIGTERM: each stops accepting and drains within SHUTDOWN_TIMEOUT_MS) and
   * waits for all to exit. Resolves with the requests cut at their deadlines, in all.
   */
  async stop(): Promise<{ unfinished: number }> {
    this.phase = 'stopping';
    for (const slot of this.slots) {
      clearTimeout(slot.restartTimer);
      slot.worker?.process.kill('SIGTERM');
    }
    await Promise.all(this.slots.map((slot) => slot.closed));
    return { unfinished: this.slots.reduce((sum, slot) => sum + slot.unfinished, 0) };
  }

  /** The last resort: every worker killed at once. */
  kill(): void {
    for (const slot of this.slots) slot.worker?.process.kill('SIGKILL');
  }

  private fork(slot: Slot): void {
    const worker = cluster.fork({
      ...this.options.env,
      [WORKER_ENV.slot]: String(slot.id),
      [WORKER_ENV.count]: String(this.options.count),
      ...(this.upstreamLoading ? { [WORKER_ENV.upstreamLoading]: '1' } : {}),
    });
    Object.assign(slot, { worker, pid: worker.process.pid, forkedAt: Date.now(), listening: false, startFailure: undefined, unfinished: 0 });
    const output = forwardLines(worker.process.stdout!);
    worker.on('message', (message: unknown) => {
      if (slot.worker === worker && isWorkerMessage(message)) this.onMessage(slot, message);
    });
    // 'close', not 'exit': it comes after the worker's output and its last messages have been read.
    slot.closed = new Promise<void>((resolve) => {
      worker.process.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        void output.then(() => {
          this.onClose(slot, code, signal);
          resolve();
        });
      });
    });
  }

  private onMessage(slot: Slot, message: WorkerMessage): void {
    switch (message.type) {
      case 'listening':
        slot.listening = true;
        this.url ??= message.url;
        this.options.logger('info', 'worker started', { worker: slot.id, pid: slot.pid });
        if (!this.upstreamLoading) this.send(slot.id, { type: 'upstream-loaded' });
        this.settleStart();
        return;
      case 'start-failed':
        slot.startFailure = { text: message.text, mistake: message.mistake };
        return;
      case 'stopped':
        slot.unfinished = message.unfinished;
        return;
      default:
        this.options.onMessage(slot.id, message);
    }
  }

  private onClose(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    slot.worker = undefined;
    slot.ended = { code, signal };
    if (this.phase === 'stopping') return;
    if (this.phase === 'starting' && !slot.listening) {
      this.settleStart();
      return;
    }
    this.scheduleRestart(slot);
  }

  /** While starting: done once every slot has listened or failed. */
  private settleStart(): void {
    if (this.phase !== 'starting') return;
    const failed = (slot: Slot) => slot.worker === undefined && !slot.listening;
    if (!this.slots.every((slot) => slot.listening || failed(slot))) return;
    if (this.slots.every(failed)) {
      this.phase = 'stopping';
      const first = this.slots[0]!;
      this.started?.reject(new WorkerStartFailure(first.startFailure?.text ?? `Cannot start: a worker process exited at start (${describeEnd(first.ended)})`));
      return;
    }
    this.phase = 'running';
    this.started?.resolve(this.url!);
    for (const slot of this.slots) if (failed(slot)) this.scheduleRestart(slot);
  }

  private scheduleRestart(slot: Slot): void {
    const delay = slot.backoff.next(Date.now() - slot.forkedAt);
    const failure = slot.startFailure;
    // One line per restart, with how the worker ended: never request data (a worker's own lines say what it served).
    this.options.logger('warn', 'worker exited', {
      worker: slot.id,
      pid: slot.pid,
      code: slot.ended?.code ?? undefined,
      signal: slot.ended?.signal ?? undefined,
      restartInMs: delay,
      startFailure: failure?.text.split('\n')[0],
    });
    // A bug at start keeps its stack, as a single process's would.
    if (failure !== undefined && !failure.mistake) process.stderr.write(`${failure.text}\n`);
    slot.restarts += 1;
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = undefined;
      if (this.phase !== 'stopping') this.fork(slot);
    }, delay);
  }
}

function describeEnd(ended: Slot['ended']): string {
  return ended?.signal ? `signal ${ended.signal}` : `code ${ended?.code ?? 'unknown'}`;
}

/** Copies a worker's output to the primary's stdout in whole lines; settles at its end. */
function forwardLines(from: Readable): Promise<void> {
  let partial = '';
  from.setEncoding('utf8');
  from.on('data', (chunk: string) => {
    const text = partial + chunk;
    const end = text.lastIndexOf('\n') + 1;
    partial = text.slice(end);
    if (end > 0) process.stdout.write(text.slice(0, end));
  });
  return new Promise((resolve) => {
    from.once('close', () => {
      if (partial !== '') process.stdout.write(`${partial}\n`);
      resolve();
    });
  });
}
