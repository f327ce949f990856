/**
 * The shared cache tier's rows of `npm run bench` (scripts/bench.ts): an answer read from Redis by a
 * second process (its own memory cache missing), cache misses that also write Redis, and cache
 * misses with Redis down (the tier skipped). Needs Debian's redis-server; without it, no rows and a
 * note on stderr.
 */
import type autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { createInterface } from 'node:readline';
import { redisMissing } from '../../test/support/redis-server.ts';
import { LEGACY_PATH } from './constants.ts';

export interface SharedTierBench<Row> {
  /** The bench's loader: warms up, loads `url` for the configured time, prints and returns a row. */
  load(name: string, url: string, requests?: autocannon.Request[]): Promise<Row>;
  /** Requests each naming a new patient from `from` on (each one a cache miss). */
  newPatients(from: number): autocannon.Request[];
  /** The bench's canned upstream origin. */
  upstream: string;
}

/** Patients of these runs: apart from the other rows' (which count up from 0). */
const PATIENTS_FROM = 300_000;
/**
 * Answers put in Redis first, then read by the second process in turn: one path for every request
 * would measure little but shared loads (50 concurrent identical misses make one Redis read).
 */
const PREFILLED = 1000;
const PREFILLED_FROM = 200_000;
const pathOf = (patient: number) => `/api/DiagnosticReport?patient=${patient}&access_token=bench-token`;

export async function measureSharedTier<Row>(bench: SharedTierBench<Row>): Promise<Row[]> {
  if (redisMissing !== undefined) {
    console.error(`  shared cache tier rows left out: ${redisMissing}`);
    return [];
  }
  const child = fork(new URL('./shared-tier-servers.ts', import.meta.url), [bench.upstream], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  try {
    const urls = await new Promise<{ writer: string; reader: string; down: string }>((resolve) => {
      createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line) as { writer: string; reader: string; down: string }));
    });
    await prefill(urls.writer);
    let next = 0;
    const inTurn: autocannon.Request[] = [{ setupRequest: (request) => ({ ...request, path: pathOf(PREFILLED_FROM + (next++ % PREFILLED)) }) }];
    const l2Hit = await bench.load(
      'facade, L2 hit from a second process (Redis; its own memory cache too small for the answer)',
      `${urls.reader}${LEGACY_PATH}`,
      inTurn,
    );
    const hits = /^facade_cache_tier_events_total\{tier="redis",event="hit"\} (\d+)$/m.exec(await (await fetch(`${urls.reader}/metrics`)).text())?.[1];
    console.error(`    (${hits ?? 0} answers read from Redis by the second process, warm-up included)`);
    return [
      l2Hit,
      await bench.load('facade, cache miss, each answer also written to Redis', `${urls.writer}${LEGACY_PATH}`, bench.newPatients(PATIENTS_FROM)),
      await bench.load('facade, cache miss with Redis down (tier skipped)', `${urls.down}${LEGACY_PATH}`, bench.newPatients(PATIENTS_FROM * 2)),
    ];
  } finally {
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

/** Asks the writer for each prefilled patient, 16 at a time, then gives the last writes to Redis a moment. */
async function prefill(writer: string): Promise<void> {
  let patient = PREFILLED_FROM;
  const worker = async () => {
    while (patient < PREFILLED_FROM + PREFILLED) await fetch(`${writer}${pathOf(patient++)}`).then((response) => response.arrayBuffer());
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  await new Promise((resolve) => setTimeout(resolve, 200));
}
