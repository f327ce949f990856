/**
 * What the bench (scripts/bench.ts) and its servers (bench/servers.ts, a child process) agree on.
 * Apart from servers.ts because importing that module starts the servers.
 */
export const BENCH_TOKEN = 'bench-token';
export const LEGACY_PATH = `/api/DiagnosticReport?patient=1&access_token=${BENCH_TOKEN}`;
/** The patient whose answer is the large one (~128 KB of legacy JSON). */
export const LARGE_PATIENT = 2;
export const LARGE_LEGACY_PATH = `/api/DiagnosticReport?patient=${LARGE_PATIENT}&access_token=${BENCH_TOKEN}`;
export const CACHE_MAX_BYTES = 16 * 1024 * 1024;
/** Patients from this id on have no reports: small answers, to load the cache with many tiny entries. */
export const EMPTY_PATIENTS_FROM = 1_000_000;

/** What the servers' process prints once they listen (one JSON line). */
export interface ServerUrls {
  upstream: string;
  /** The facade with its response cache. */
  cached: string;
  /** The facade with the cache off: every request parsed, mapped, serialized. */
  uncached: string;
  /** A bare undici proxy that pipes the upstream's bytes back. */
  passThrough: string;
  /** A naive proxy: undici, JSON.parse, the same mapper and envelope, JSON.stringify (bench/naive-proxy.ts). */
  naive: string;
  /** Hono serving the facade's 24 KB answer as pre-encoded bytes (the ceiling of a hit). */
  ceiling: string;
  /** The same for the large answer. */
  largeCeiling: string;
  bodyBytes: number;
  largeBodyBytes: number;
  upstreamBytes: number;
}

/** What the servers' process answers to `memory`, after a full GC. */
export interface ServerMemory {
  peakRssBytes: number;
  rssBytes: number;
  /** V8 heap plus ArrayBuffers (the cached bodies are bytes, outside the V8 heap). */
  heapUsedBytes: number;
}
