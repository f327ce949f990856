/**
 * `/metrics` with several worker processes: whichever worker takes the scrape asks the primary,
 * which collects every worker's text over IPC and merges them, each series labelled with its
 * worker's slot (`worker="1"`). Labelled, not summed: a restarted worker's counters start again
 * from 0, which Prometheus reads as a reset of that one series; a sum that fell would be misread as
 * a reset of the whole. `sum without (worker) (…)` gives the service's totals.
 */

/** How long the primary waits for the workers' texts; a worker that has not answered by then is left out. */
export const COLLECT_WAIT_MS = 1000;

export interface WorkerMetricsSource {
  listeningSlots(): number[];
  send(slot: number, message: { type: 'metrics-collect'; id: number }): void;
  restarts(): ReadonlyMap<number, number>;
}

interface Collection {
  readonly parts: Map<number, string>;
  readonly waiting: Set<number>;
  readonly done: () => void;
}

/** The primary's side: one collection per scrape, answered once every worker has sent its text or the wait is over. */
export class MetricsCollector {
  private nextId = 1;
  private readonly collections = new Map<number, Collection>();

  constructor(private readonly workers: WorkerMetricsSource) {}

  async collect(): Promise<string> {
    const id = this.nextId++;
    const slots = this.workers.listeningSlots();
    const parts = new Map<number, string>();
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.collections.set(id, { parts, waiting: new Set(slots), done: resolve });
      timer = setTimeout(resolve, COLLECT_WAIT_MS);
      for (const slot of slots) this.workers.send(slot, { type: 'metrics-collect', id });
      if (slots.length === 0) resolve();
    });
    clearTimeout(timer);
    this.collections.delete(id);
    const merged = mergeWorkerMetrics([...parts].sort(([a], [b]) => a - b).map(([worker, text]) => ({ worker, text })));
    return `${merged}${this.primaryMetrics(parts.size)}`;
  }

  /** A worker's text for collection `id`. */
  receive(slot: number, id: number, text: string): void {
    const collection = this.collections.get(id);
    if (collection === undefined) return;
    collection.parts.set(slot, text);
    collection.waiting.delete(slot);
    if (collection.waiting.size === 0) collection.done();
  }

  private primaryMetrics(answered: number): string {
    const lines = [
      '# HELP facade_workers Worker processes whose metrics are in this answer.',
      '# TYPE facade_workers gauge',
      `facade_workers ${answered}`,
      '# HELP facade_worker_restarts_total Worker processes restarted after they exited, by worker slot.',
      '# TYPE facade_worker_restarts_total counter',
      ...[...this.workers.restarts()].map(([slot, count]) => `facade_worker_restarts_total{worker="${slot}"} ${count}`),
    ];
    return `${lines.join('\n')}\n`;
  }
}

/**
 * Several processes' Prometheus texts as one: each metric family once (its HELP and TYPE), with
 * every process's samples under it, labelled `worker="<slot>"`. Families keep the order they first
 * appear in.
 */
export function mergeWorkerMetrics(parts: readonly { worker: number; text: string }[]): string {
  const families = new Map<string, { header: string[]; samples: string[] }>();
  for (const { worker, text } of parts) {
    let family: { header: string[]; samples: string[] } | undefined;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const header = /^# (HELP|TYPE) (\S+)/.exec(line);
      if (header) {
        const name = header[2]!;
        family = families.get(name);
        if (family === undefined) {
          family = { header: [], samples: [] };
          families.set(name, family);
        }
        if (!family.header.some((seen) => seen.startsWith(`# ${header[1]} `))) family.header.push(line);
        continue;
      }
      if (line.startsWith('#')) continue;
      if (family === undefined) {
        family = { header: [], samples: [] };
        families.set('', family);
      }
      family.samples.push(withWorkerLabel(line, worker));
    }
  }
  const lines: string[] = [];
  for (const family of families.values()) lines.push(...family.header, ...family.samples);
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** `name{a="b"} 1` → `name{worker="2",a="b"} 1`; `name 1` → `name{worker="2"} 1`. */
function withWorkerLabel(sample: string, worker: number): string {
  const nameEnd = sample.search(/[{ ]/);
  if (nameEnd === -1) return sample;
  const name = sample.slice(0, nameEnd);
  const label = `worker="${worker}"`;
  if (sample[nameEnd] === '{') {
    const rest = sample.slice(nameEnd + 1);
    return `${name}{${label}${rest.startsWith('}') ? '' : ','}${rest}`;
  }
  return `${name}{${label}}${sample.slice(nameEnd)}`;
}
