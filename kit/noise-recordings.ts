/**
 * Noise: a second recording of the same requests from the old system (`--noise DIR`). What differs
 * between two answers of the old system to the same request — a Bundle id generated per answer, a
 * server timestamp, an order it does not keep — is no migration difference; the report shows those
 * paths apart and leaves them out of the verdict.
 *
 * Recordings of the two folders are paired by their request, not by file name (a scenario name may
 * differ between two captures): method, path and the parameters (query and form body together, in
 * any order, as the emulator matches them), and whether it was sent with a token — a 401 and a 200
 * of the same search are two requests. When a folder holds two recordings of one request, the first
 * by file name is used, as the emulator serves it.
 */
import { matchKey } from './emulator.ts';
import { readRecordings, type Recording } from './recordings.ts';
import type { RequestSpec } from './requests-file.ts';

export interface NoiseRecordings {
  dir: string;
  /** By `requestKey`. */
  byRequest: Map<string, { file: string; recording: Recording }>;
}

export function requestKey(request: Pick<RequestSpec, 'method' | 'path' | 'query' | 'requestBody' | 'withToken'>): string {
  const pairs: [string, string][] = [...request.query, ...new URLSearchParams(request.requestBody ?? '')];
  return `${matchKey(request.method, request.path, pairs)}${request.withToken ? ' with token' : ' without token'}`;
}

export async function readNoiseRecordings(dir: string): Promise<NoiseRecordings> {
  const byRequest = new Map<string, { file: string; recording: Recording }>();
  for (const entry of await readRecordings(dir)) {
    const key = requestKey(entry.recording);
    if (!byRequest.has(key)) byRequest.set(key, entry);
  }
  return { dir, byRequest };
}
