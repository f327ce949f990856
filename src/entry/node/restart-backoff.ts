/**
 * When the primary restarts a worker that exited: at once after a run that lasted, later and later
 * after deaths that came soon after the worker's start, so a worker that crashes at start does not
 * spin (fork, load, crash) and take the cores the other workers serve with.
 */

/** The first restart's delay: soon, since the other workers carry the load meanwhile. */
const FIRST_DELAY_MS = 100;
/** The longest wait between restarts of a worker that keeps dying. */
const MAX_DELAY_MS = 10_000;
/** A run at least this long counts as healthy: the next death restarts at once again. */
const HEALTHY_RUN_MS = 10_000;

export class RestartBackoff {
  private quickDeaths = 0;

  /** The delay before restarting a worker that ran `ranMs` before it exited. */
  next(ranMs: number): number {
    if (ranMs >= HEALTHY_RUN_MS) this.quickDeaths = 0;
    const delay = Math.min(FIRST_DELAY_MS * 2 ** this.quickDeaths, MAX_DELAY_MS);
    this.quickDeaths += 1;
    return delay;
  }
}
