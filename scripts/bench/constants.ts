/**
 * What the bench (scripts/bench.ts) and its servers (bench/servers.ts, a child process) agree on.
 * Apart from servers.ts because importing that module starts the servers.
 */
export const LEGACY_PATH = '/api/DiagnosticReport?patient=1&access_token=bench-token';
export const CACHE_MAX_BYTES = 16 * 1024 * 1024;
/** Patients from this id on have no reports: small answers, to load the cache with many tiny entries. */
export const EMPTY_PATIENTS_FROM = 1_000_000;
