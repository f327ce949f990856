/**
 * `npm run bench -- --soak`: the cached facade under a steady mixed load for a long time (10
 * minutes by default, BENCH_SOAK_SECONDS for a quick try) at 80 % of the capacity measured for the
 * same mix just before: thousands of distinct requests, each with its own token, most of them hits
 * on a hot set and the rest misses that store and evict. The servers' heap (and buffers) after a
 * full GC is sampled throughout: after the warm-up it must stay flat, and no request may fail.
 */
import type autocannon from 'autocannon';
import { EMPTY_PATIENTS_FROM } from './constants.ts';
import { mib, type Bench, type Section } from './load.ts';

/** Distinct requests, each its own patient and token; one in ten answers empty (tiny entries). */
const DISTINCT = 2500;
/** The hot set (all of it fits the cache) and the share of requests that go to it. */
const HOT = 250;
const HOT_SHARE = 0.8;
/** Capacity is measured first, for at most this long; the soak then runs at this share of it. */
const CAPACITY_SECONDS = 10;
const LOAD_SHARE = 0.8;
/** The first part of the soak is warm-up (JIT, cache filling): the heap is judged after it. */
const WARM_UP_SHARE = 0.2;
const MAX_GROWTH = 0.1;

/** A request of the mix: patient, token, and where the token goes (the query or the Authorization header). */
function nthRequest(index: number): { path: string; headers: Record<string, string> } {
  const patient = index % 10 === 9 ? EMPTY_PATIENTS_FROM + 500_000 + index : 100 + index;
  const token = `soak-token-${index.toString(36).padStart(4, '0')}`;
  if (index % 2 === 0) return { path: `/api/DiagnosticReport?patient=${patient}&access_token=${token}`, headers: {} };
  return { path: `/api/DiagnosticReport?patient=${patient}`, headers: { authorization: `Bearer ${token}` } };
}

/** The mix, from a seeded generator: the same sequence on every run. */
function mixedRequests(): autocannon.Request[] {
  let seed = 0x2545f491;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 0x100000000;
  };
  return [
    {
      setupRequest: (request) => {
        const index = random() < HOT_SHARE ? Math.floor(random() * HOT) : Math.floor(random() * DISTINCT);
        const { path, headers } = nthRequest(index);
        return { ...request, path, headers: { ...request.headers, ...headers } };
      },
    },
  ];
}

/** The facade's cache outcomes so far, from its /metrics. */
async function cacheOutcomes(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const outcomes: Record<string, number> = {};
  for (const [, outcome, count] of text.matchAll(/^facade_cache_events_total\{outcome="(\w+)"\} (\d+)$/gm)) outcomes[outcome!] = Number(count);
  return outcomes;
}

export async function soakSection(bench: Bench, seconds: number): Promise<Section> {
  const url = `${bench.urls.cached}/api/DiagnosticReport`;
  const capacity = await bench.load('soak mix at full speed (capacity)', url, {
    requests: mixedRequests(),
    seconds: Math.min(CAPACITY_SECONDS, Math.max(2, seconds / 6)),
  });
  const rate = Math.max(1, Math.round(capacity.requestsPerSecond * LOAD_SHARE));
  const before = await cacheOutcomes(bench.urls.cached);
  // Samples of the heap after a full GC while the load runs (the GC pauses the servers a little).
  const samples: { at: number; bytes: number }[] = [];
  const every = Math.max(5, seconds / 20) * 1000;
  const started = performance.now();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await new Promise((resolve) => setTimeout(resolve, every));
      if (sampling) samples.push({ at: (performance.now() - started) / 1000, bytes: (await bench.memory()).heapUsedBytes });
    }
  })();
  const row = await bench.load(`soak: ${seconds} s at ${rate} req/s (80 % of capacity), ${DISTINCT} distinct requests and tokens`, url, {
    requests: mixedRequests(),
    rate,
    seconds,
    cold: true,
  });
  sampling = false;
  await sampler;
  samples.push({ at: seconds, bytes: (await bench.memory()).heapUsedBytes });
  const after = await cacheOutcomes(bench.urls.cached);
  const delta = (outcome: string) => (after[outcome] ?? 0) - (before[outcome] ?? 0);
  const answered = delta('hit') + delta('stale') + delta('miss');
  // Flat means no trend: the first quarter of the samples after the warm-up against the last quarter
  // (a single sample may catch many requests in flight, whose data no GC can free: the highest is shown apart).
  const settled = samples.filter((sample) => sample.at >= seconds * WARM_UP_SHARE);
  const quarter = Math.max(1, Math.floor(settled.length / 4));
  const mean = (list: typeof samples) => list.reduce((sum, sample) => sum + sample.bytes, 0) / list.length;
  const early = mean(settled.slice(0, quarter));
  const late = mean(settled.slice(-quarter));
  const highest = Math.max(...settled.map((sample) => sample.bytes));
  const growth = (late - early) / early;
  row.name += `, ${Math.round((100 * delta('hit')) / Math.max(1, answered))} % hits`;
  return {
    rows: [capacity, row],
    ratios: [
      {
        name: `soak: servers' heap and buffers after a full GC, ${settled.length} samples after the warm-up (${Math.round(seconds * WARM_UP_SHARE)} s): first quarter → last quarter (highest sample)`,
        measured: `${mib(early)} → ${mib(late)}: ${signed(growth)} (${mib(highest)})`,
        target: '< 10 % growth',
        met: growth < MAX_GROWTH,
      },
      { name: 'soak: failed requests (errors, timeouts, non-2xx)', measured: String(row.errors), target: '0', met: row.errors === 0 },
      { name: 'soak: rate held', measured: `${row.requestsPerSecond} of ${rate} req/s`, target: '(information)' },
    ],
  };
}

function signed(share: number): string {
  return `${share >= 0 ? '+' : ''}${(share * 100).toFixed(1)} %`;
}
