/**
 * The bench's rows beyond one process (scripts/bench.ts): the shared cache tier (an L2 hit from a
 * second process, misses written to Redis, Redis down; scripts/bench/shared-tier.ts) and misses with
 * WORKERS=1 against WORKERS=2 of the compiled service (scripts/bench/worker-scaling.ts).
 */
import type autocannon from 'autocannon';
import { BENCH_TOKEN } from './constants.ts';
import type { Bench, Section } from './load.ts';
import { measureSharedTier } from './shared-tier.ts';
import { measureWorkerScaling, workerScalingRatio } from './worker-scaling.ts';

/** Every request names the next patient from `from` on: each a real cache miss (the ranges are apart from the other rows'). */
function patientsFrom(from: number): autocannon.Request[] {
  let patient = from;
  return [{ setupRequest: (request) => ({ ...request, path: `/api/DiagnosticReport?patient=${patient++}&access_token=${BENCH_TOKEN}` }) }];
}

/** The shared tier's rows (none, with a note, where redis-server is not installed). */
export async function sharedTierSection(bench: Bench): Promise<Section> {
  const rows = await measureSharedTier({
    load: (name, url, requests) => bench.load(name, url, { requests, servedElsewhere: true }),
    newPatients: patientsFrom,
    upstream: bench.urls.upstream,
  });
  return { rows, ratios: [] };
}

/** Misses with one worker, then two, against the bench's canned upstream. */
export async function workersSection(bench: Bench, cacheMaxBytes: number): Promise<Section> {
  const runs = await measureWorkerScaling({
    upstream: bench.urls.upstream,
    upstreamPid: bench.serversPid,
    cacheMaxBytes,
    load: (name, url) => bench.load(name, url, { requests: patientsFrom(400_000), servedElsewhere: true }),
  });
  return { rows: runs.map((run) => run.row), ratios: [workerScalingRatio(runs)] };
}
