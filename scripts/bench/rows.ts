/**
 * The rows of `npm run bench`, as sections: each loads its targets and says what its figures mean
 * against the targets of docs/performance.md. scripts/bench.ts runs them in order; a new row is a
 * new function here (or in its own file) and one line there.
 */
import type autocannon from 'autocannon';
import { BENCH_TOKEN, CACHE_MAX_BYTES, EMPTY_PATIENTS_FROM, LARGE_LEGACY_PATH, LEGACY_PATH } from './constants.ts';
import { alternate, mib, type Bench, type RatioLine, type Section } from './load.ts';

const ratio = (value: number) => value.toFixed(2);

/** A cache hit of the usual 24 KB answer against Hono serving the same bytes. */
export async function hitSection(bench: Bench): Promise<Section> {
  const { urls } = bench;
  const pair = await alternate(
    bench,
    { name: 'facade, cache hit (24 KB)', url: `${urls.cached}${LEGACY_PATH}` },
    { name: 'Hono, the same 24 KB pre-encoded (ceiling)', url: `${urls.ceiling}${LEGACY_PATH}` },
  );
  return {
    rows: [pair.b, pair.a],
    ratios: [
      { name: 'cache hit / ceiling, 24 KB', measured: ratio(pair.throughput), target: '≥ 0.9', met: pair.throughput >= 0.9 },
      { name: 'cache hit p99 / ceiling p99, 24 KB', measured: ratio(pair.p99), target: '≤ 2', met: pair.p99 <= 2 },
      { name: "servers' CPU per request, hit / ceiling, 24 KB", measured: ratio(pair.cpu), target: '(information)' },
    ],
  };
}

/** The same for a ~128 KB answer (its own ceiling). */
export async function largeHitSection(bench: Bench): Promise<Section> {
  const { urls } = bench;
  const kb = Math.round(urls.largeBodyBytes / 1024);
  const pair = await alternate(
    bench,
    { name: `facade, cache hit (${kb} KB)`, url: `${urls.cached}${LARGE_LEGACY_PATH}` },
    { name: `Hono, the same ${kb} KB pre-encoded (ceiling)`, url: `${urls.largeCeiling}${LARGE_LEGACY_PATH}` },
  );
  return {
    rows: [pair.b, pair.a],
    ratios: [
      { name: `cache hit / ceiling, ${kb} KB`, measured: ratio(pair.throughput), target: '≥ 0.9', met: pair.throughput >= 0.9 },
      { name: `cache hit p99 / ceiling p99, ${kb} KB`, measured: ratio(pair.p99), target: '≤ 2', met: pair.p99 <= 2 },
    ],
  };
}

/** The facade with its cache off against a naive parse-map-serialize proxy of the same upstream. */
export async function cacheOffSection(bench: Bench): Promise<Section> {
  const { urls } = bench;
  const pair = await alternate(
    bench,
    { name: 'facade, cache off (every request parsed, mapped, serialized)', url: `${urls.uncached}${LEGACY_PATH}` },
    { name: 'naive proxy: undici, JSON.parse, the same mapper, JSON.stringify', url: `${urls.naive}${LEGACY_PATH}` },
  );
  return {
    rows: [pair.b, pair.a],
    ratios: [{ name: 'cache off / naive proxy', measured: ratio(pair.throughput), target: '≥ 1.0', met: pair.throughput >= 1 }],
  };
}

/**
 * What the misses may add beside the cache, each structure bounded by count (docs/performance.md,
 * "Memory"): the validated-request memo (≤ 2,000 entries, ~1.6 MiB), remembered legacy times
 * (≤ 50,000, ~5 MiB), normalized references and timestamps (≤ 20,000 each, ~2.5 MiB each).
 */
const BOUNDED_MEMOS_BYTES = 12 * 1024 * 1024;

/** The last patient asked for, per range: patients 1 and 2 are the hit rows' (2 the large answer). */
const lastPatient = new Map<number, number>([
  [0, 10],
  [EMPTY_PATIENTS_FROM, EMPTY_PATIENTS_FROM],
]);

/** Every request names a patient never asked for before in this run: each one a real cache miss, stored and evicting. */
function distinctPatients(range: 0 | typeof EMPTY_PATIENTS_FROM): autocannon.Request[] {
  const next = () => {
    const patient = lastPatient.get(range)! + 1;
    lastPatient.set(range, patient);
    return patient;
  };
  return [{ setupRequest: (request) => ({ ...request, path: `/api/DiagnosticReport?patient=${next()}&access_token=${BENCH_TOKEN}` }) }];
}

/**
 * Misses against the bare pass-through, then more misses and many tiny entries, with the servers'
 * memory after each: the cache's byte bound must hold whatever fills it.
 */
export async function missSection(bench: Bench): Promise<Section> {
  const { urls } = bench;
  const afterWarmUp = await bench.memory();
  const misses = () => distinctPatients(0);
  const pair = await alternate(
    bench,
    { name: 'facade, cache miss (a new patient each request; cache full, evicting)', url: `${urls.cached}${LEGACY_PATH}`, options: { requests: misses() } },
    { name: 'bare undici pass-through proxy to that upstream', url: `${urls.passThrough}/DiagnosticReport?patient=Patient%2F1` },
  );
  const afterMisses = await bench.memory();
  const direct = await bench.load('the canned upstream directly', `${urls.upstream}/fhir/DiagnosticReport?patient=Patient%2F1`);
  const again = await bench.load('facade, cache miss, continued', `${urls.cached}${LEGACY_PATH}`, { requests: misses() });
  const afterMore = await bench.memory();
  // Many tiny answers: the byte bound must count keys and per-entry overhead, not bodies alone.
  const tiny = await bench.load('facade, cache miss on empty answers (many tiny entries)', `${urls.cached}${LEGACY_PATH}`, {
    requests: distinctPatients(EMPTY_PATIENTS_FROM),
  });
  const afterTiny = await bench.memory();
  const points = [afterWarmUp, afterMisses, afterMore, afterTiny];
  const heapGrowth = Math.max(...points.map((point) => point.heapUsedBytes)) - afterWarmUp.heapUsedBytes;
  const memory: RatioLine[] = [
    {
      name: "servers' process, peak RSS: before the misses / after misses / after more misses / after tiny entries",
      measured: points.map((point) => mib(point.peakRssBytes)).join(' / '),
      target: `bounded (cache limit ${mib(CACHE_MAX_BYTES)})`,
    },
    {
      name: "servers' process, heap and buffers after a full GC: same points",
      measured: points.map((point) => mib(point.heapUsedBytes)).join(' / '),
      target: `grows by at most the cache limit + ${mib(BOUNDED_MEMOS_BYTES)} of bounded memos`,
      met: heapGrowth <= CACHE_MAX_BYTES + BOUNDED_MEMOS_BYTES,
    },
  ];
  return {
    rows: [pair.b, direct, pair.a, again, tiny],
    ratios: [{ name: 'cache miss / pass-through', measured: ratio(pair.throughput), target: '≥ 0.3', met: pair.throughput >= 0.3 }, ...memory],
  };
}
