/**
 * The request list from access logs: every line read as it streams by (a log of millions of lines
 * is never held whole), the requests kept deduplicated, optionally sampled per endpoint, and
 * written as a requests file (requests-file.ts) that record and diff read.
 *
 * Sampling keeps, per endpoint, the N distinct requests with the smallest seeded hash: a uniform,
 * reproducible draw over the distinct requests whatever their frequency (the most frequent ones
 * are usually a monitoring probe or one busy patient; the migration needs the variety). Because a
 * request's rank never changes, one whose rank is beaten N times can never come back, so the
 * sample streams in memory bounded by N per endpoint and the line counts of the kept requests are
 * exact.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { readLogLine, requestKey, requestsFileLine, SKIP_REASONS, type LoggedRequest, type SkipReason } from './access-log.ts';
import { escapeControls } from './recordings.ts';

export interface LogSelectionOptions {
  /** At most this many distinct requests per endpoint; all of them when absent. */
  sample?: number;
  /** Changes which requests the sample draws (the same seed, the same sample). */
  seed?: string;
  /** The kit's own tokens: a line holding one outside `access_token` is left out. */
  knownTokens?: readonly string[];
}

export interface SelectedRequest {
  request: LoggedRequest;
  /** Log lines that were this request. */
  lines: number;
  /** `file:line` of its first line. */
  firstSeen: string;
}

export interface EndpointTally {
  /** Log lines kept for the endpoint (before sampling). */
  lines: number;
  /** Requests kept, and the lines they stand for. */
  requests: number;
  requestLines: number;
}

export interface LogSelection {
  files: string[];
  linesRead: number;
  /** By reason: the number of lines, and where the first few are (`file:line`; never their content). */
  skipped: Map<SkipReason, { lines: number; first: string[] }>;
  endpoints: Map<string, EndpointTally>;
  /** By endpoint name, then most lines first; the same lines always give the same order. */
  requests: SelectedRequest[];
  sample?: { perEndpoint: number; seed: string };
}

export class LogFileError extends Error {
  override readonly name = 'LogFileError';
}

const FIRST_LINES_SHOWN = 3;

interface Candidate extends SelectedRequest {
  key: string;
  rank: string;
}

/** Per endpoint: the requests that may still be in the sample, and the rank a newcomer must beat. */
interface EndpointPool {
  lines: number;
  candidates: Candidate[];
  threshold?: string;
}

export async function selectLogRequests(files: readonly string[], options: LogSelectionOptions = {}): Promise<LogSelection> {
  const limit = options.sample ?? Infinity;
  if (!(limit === Infinity || (Number.isInteger(limit) && limit > 0))) throw new RangeError('sample must be a positive integer');
  const seed = options.seed ?? '';
  const byKey = new Map<string, Candidate>();
  const pools = new Map<string, EndpointPool>();
  const skipped = new Map<SkipReason, { lines: number; first: string[] }>();
  let linesRead = 0;

  /** Keeps the best `limit` candidates; those cut can never come back, so they are forgotten. */
  const cut = (pool: EndpointPool) => {
    pool.candidates.sort(byRank);
    for (const dropped of pool.candidates.splice(limit)) byKey.delete(dropped.key);
    pool.threshold = pool.candidates.at(-1)?.rank;
  };

  for (const file of files) {
    const shownName = escapeControls(file);
    let lineNumber = 0;
    for await (const line of logLines(file)) {
      lineNumber += 1;
      linesRead += 1;
      const verdict = readLogLine(line, options.knownTokens);
      if (verdict.skipped !== undefined) {
        const tally = skipped.get(verdict.skipped) ?? { lines: 0, first: [] };
        tally.lines += 1;
        if (tally.first.length < FIRST_LINES_SHOWN) tally.first.push(`${shownName}:${lineNumber}`);
        skipped.set(verdict.skipped, tally);
        continue;
      }
      const { request } = verdict;
      const pool = pools.get(request.endpoint) ?? { lines: 0, candidates: [] };
      pools.set(request.endpoint, pool);
      pool.lines += 1;
      const key = requestKey(request);
      const known = byKey.get(key);
      if (known !== undefined) {
        known.lines += 1;
        continue;
      }
      const rank = limit === Infinity ? '' : createHash('sha256').update(`${seed}\u0000${key}`).digest('hex').slice(0, 16);
      if (pool.threshold !== undefined && rank >= pool.threshold) continue;
      const candidate: Candidate = { request, lines: 1, firstSeen: `${shownName}:${lineNumber}`, key, rank };
      byKey.set(key, candidate);
      pool.candidates.push(candidate);
      // Cutting at twice the limit sorts now and then instead of at every newcomer.
      if (pool.candidates.length >= 2 * limit) cut(pool);
    }
  }

  const endpoints = new Map<string, EndpointTally>();
  const requests: SelectedRequest[] = [];
  for (const name of [...pools.keys()].sort()) {
    const pool = pools.get(name)!;
    if (limit !== Infinity) cut(pool);
    const kept = pool.candidates.sort((a, b) => b.lines - a.lines || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    endpoints.set(name, { lines: pool.lines, requests: kept.length, requestLines: kept.reduce((sum, c) => sum + c.lines, 0) });
    // One by one: spreading a million requests into push() would overflow the call stack.
    for (const { request, lines, firstSeen } of kept) requests.push({ request, lines, firstSeen });
  }
  return { files: [...files], linesRead, skipped, endpoints, requests, ...(limit === Infinity ? {} : { sample: { perEndpoint: limit, seed } }) };
}

function byRank(a: Candidate, b: Candidate): number {
  return a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0;
}

/** The lines of a log, streamed; a `.gz` file (a rotated log) is gunzipped on the way. */
async function* logLines(file: string): AsyncGenerator<string> {
  // A file system error by its code (ENOENT), a gzip one by its message ("unexpected end of file"); neither quotes the log.
  const failed = (error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    return new LogFileError(`access log ${escapeControls(file)}: ${code?.startsWith('E') ? code : (error as Error).message}`);
  };
  let input: Readable;
  try {
    input = (await open(file)).createReadStream();
  } catch (error) {
    throw failed(error);
  }
  if (file.endsWith('.gz')) {
    const gunzip = createGunzip();
    input.on('error', (error) => gunzip.destroy(error));
    input = input.pipe(gunzip);
  }
  try {
    // readline rejects the iteration on an input error (unreadable file, broken gzip): named by file, not content.
    yield* createInterface({ input: input.setEncoding('utf8'), crlfDelay: Infinity });
  } catch (error) {
    throw failed(error);
  } finally {
    input.destroy();
  }
}

/** What the selection did, a line each, for standard error: counts, endpoints and line numbers only. */
export function selectionReport(selection: LogSelection): string[] {
  const kept = [...selection.endpoints.values()];
  const linesKept = kept.reduce((sum, tally) => sum + tally.lines, 0);
  const requestLines = kept.reduce((sum, tally) => sum + tally.requestLines, 0);
  const report = [
    `read ${count(selection.linesRead, 'log line')}: ${linesKept} of legacy requests, ${selection.linesRead - linesKept} skipped`,
    `${count(selection.requests.length, 'distinct request')} kept, standing for ${count(requestLines, 'line')} (${count(requestLines - selection.requests.length, 'repeat')} collapsed)`,
  ];
  if (selection.sample) {
    const notDrawn = linesKept - requestLines;
    report.push(
      `sampled at most ${selection.sample.perEndpoint} per endpoint (seed "${escapeControls(selection.sample.seed)}"): ${count(notDrawn, 'line')} of requests not drawn`,
    );
  }
  for (const [endpoint, tally] of selection.endpoints) {
    report.push(`  ${endpoint}: ${count(tally.lines, 'line')}, ${count(tally.requests, 'request')} kept (standing for ${tally.requestLines} of the lines)`);
  }
  for (const [reason, tally] of [...selection.skipped].sort((a, b) => b[1].lines - a[1].lines)) {
    report.push(`  skipped ${count(tally.lines, 'line')}: ${SKIP_REASONS[reason]} (first: ${tally.first.join(', ')})`);
  }
  return report;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The selection as a requests file: each request under a comment saying how many lines it stands for. */
export function requestsFileText(selection: LogSelection): string {
  const lines = [
    `# Requests from the access log (${escapeControls(selection.files.join(', '))}), written by npm run record -- --from-log.`,
    ...selectionReport(selection).map((line) => `# ${line.trim()}`),
    '# Review before recording: the lines hold patient ids. Scenario names are derived from each request.',
  ];
  let endpoint: string | undefined;
  for (const { request, lines: seen, firstSeen } of selection.requests) {
    if (request.endpoint !== endpoint) {
      endpoint = request.endpoint;
      lines.push('', `# ${endpoint}`);
    }
    lines.push(`# ${count(seen, 'log line')}, first at ${firstSeen}`, requestsFileLine(request));
  }
  return `${lines.join('\n')}\n`;
}
