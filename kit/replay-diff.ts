/**
 * Diff: replays recordings against a target (or sends a requests file to two systems) and compares
 * each pair of answers — status, the headers the rules name, and the bodies structurally. Requests
 * are sent a few at a time (`concurrency`; the old system may be production), and the comparisons
 * come back in the order of the recordings or the requests file whatever order they finish in.
 * With a second recording of the old system (`noiseDir`), the left answer of each request is also
 * compared with it: what differs there is noise (noise-recordings.ts; diff-patterns.ts groups it).
 */
import type { DiffRules } from './diff-rules.ts';
import { endpointOf } from './endpoints.ts';
import { diffJson, type Difference } from './json-diff.ts';
import { tryParseJsonText } from './json-text.ts';
import { sendRequest, type Exchange } from './http-exchange.ts';
import { readNoiseRecordings, requestKey, type NoiseRecordings } from './noise-recordings.ts';
import { readRecordings, requestLine, type Recording } from './recordings.ts';
import type { Redactor } from './redaction.ts';
import type { RequestSpec } from './requests-file.ts';
import { scrubExchange } from './token-scan.ts';

export interface RequestComparison {
  /** `GET /Orders?patient=1` (never a token). */
  request: string;
  /** `GET /api/DiagnosticReport/:id` (endpoints.ts). */
  endpoint: string;
  /** The recording replayed, in recordings mode. */
  file?: string;
  leftStatus: number;
  rightStatus: number;
  differences: Difference[];
}

export interface NoiseComparisons {
  /** The folder of the second recording. */
  dir: string;
  /** One per request that has a second recording: the left answer against it. */
  comparisons: RequestComparison[];
  /** Requests without a second recording (their noise is unknown). */
  unmatched: number;
}

export interface DiffReport {
  /** What was compared, for the report's title: a recordings folder or a URL, and a URL. */
  left: string;
  right: string;
  comparisons: RequestComparison[];
  noise?: NoiseComparisons;
}

/** The diff cannot run as asked (exit code 2, like a network failure). */
export class DiffSetupError extends Error {
  override readonly name = 'DiffSetupError';
}

/** What both modes take besides their sides. */
interface CommonOptions {
  rules: DiffRules;
  /** Redacts answers with the key the recordings were made with (see each mode). */
  redactor?: Redactor;
  /** A second recording of the old system, to tell noise by. */
  noiseDir?: string;
  /** Requests in flight at once (default 4): the old system is production. */
  concurrency?: number;
  /** Called after each request compared (a progress line). */
  onProgress?: (done: number, total: number) => void;
}

export const DEFAULT_CONCURRENCY = 4;

export interface RecordingsDiffOptions extends CommonOptions {
  recordingsDir: string;
  target: string;
  token: string | undefined;
  /** Further tokens scrubbed from both sides besides `token` (the CLI passes every token it was given). */
  alsoScrub?: readonly (string | undefined)[];
}

export async function diffRecordings(options: RecordingsDiffOptions): Promise<DiffReport> {
  const { redactor } = options;
  const recordings = await readRecordings(options.recordingsDir);
  if (recordings.length === 0) throw new DiffSetupError(`no recordings in ${options.recordingsDir}`);
  for (const { file, recording } of recordings) checkRedaction(file, recording, redactor);
  if ((options.token === undefined || options.token === '') && recordings.some(({ recording }) => recording.withToken)) {
    throw new DiffSetupError('some recordings were made with a token: set TARGET_ACCESS_TOKEN (or LEGACY_ACCESS_TOKEN)');
  }
  const noise = await loadNoise(options.noiseDir, redactor);
  // The tokens are scrubbed from each answer as it arrives, before anything compares, cuts or prints them.
  const tokens = [options.token, ...(options.alsoScrub ?? [])];
  const compared = await inPool(recordings, options, async ({ file, recording }) => {
    const answer = scrubExchange(await sendRequest(options.target, recording, options.token), tokens);
    const left = redactor && !recording.redaction ? redactExchange(scrubExchange(recording, tokens), redactor) : scrubExchange(recording, tokens);
    const right = redactor ? redactExchange(answer, redactor) : answer;
    return {
      comparison: comparison(recording, left, right, options.rules, file),
      noise: noise && compareWithNoise(recording, left, noise, tokens, options),
    };
  });
  return report(options.recordingsDir, options.target, compared, noise);
}

export interface LiveDiffOptions extends CommonOptions {
  left: string;
  right: string;
  requests: RequestSpec[];
  leftToken: string | undefined;
  rightToken: string | undefined;
  /** Further tokens scrubbed from both sides besides the two above. */
  alsoScrub?: readonly (string | undefined)[];
}

/** `redactor` redacts both sides, so that the report holds no personal data either. */
export async function diffLive(options: LiveDiffOptions): Promise<DiffReport> {
  const noise = await loadNoise(options.noiseDir, options.redactor);
  // Both tokens scrubbed from both answers as they arrive, before anything compares, cuts or prints them.
  const tokens = [options.leftToken, options.rightToken, ...(options.alsoScrub ?? [])];
  const compared = await inPool(options.requests, options, async (request) => {
    let left = scrubExchange(await sendRequest(options.left, request, options.leftToken), tokens);
    let right = scrubExchange(await sendRequest(options.right, request, options.rightToken), tokens);
    if (options.redactor) {
      left = redactExchange(left, options.redactor);
      right = redactExchange(right, options.redactor);
    }
    // The left side was sent with a token only when there was one: that is the recording to pair it with.
    const sent = { ...request, withToken: request.withToken && options.leftToken !== undefined && options.leftToken !== '' };
    return { comparison: comparison(request, left, right, options.rules), noise: noise && compareWithNoise(sent, left, noise, tokens, options) };
  });
  return report(options.left, options.right, compared, noise);
}

function comparison(request: RequestSpec, left: Exchange, right: Exchange, rules: DiffRules, file?: string): RequestComparison {
  return {
    request: requestLine(request),
    endpoint: endpointOf(request),
    ...(file !== undefined ? { file } : {}),
    leftStatus: left.status,
    rightStatus: right.status,
    differences: compareExchanges(left, right, rules),
  };
}

async function loadNoise(dir: string | undefined, redactor: Redactor | undefined): Promise<NoiseRecordings | undefined> {
  if (dir === undefined) return undefined;
  const noise = await readNoiseRecordings(dir);
  if (noise.byRequest.size === 0) throw new DiffSetupError(`no recordings in ${dir} (--noise)`);
  for (const { file, recording } of noise.byRequest.values()) checkRedaction(file, recording, redactor);
  return noise;
}

/** The left answer against the second recording of the same request; `null` when there is none. */
function compareWithNoise(
  request: RequestSpec,
  left: Exchange,
  noise: NoiseRecordings,
  tokens: readonly (string | undefined)[],
  options: CommonOptions,
): RequestComparison | null {
  const second = noise.byRequest.get(requestKey(request));
  if (second === undefined) return null;
  const scrubbed = scrubExchange(second.recording, tokens);
  const other = options.redactor && !second.recording.redaction ? redactExchange(scrubbed, options.redactor) : scrubbed;
  return comparison(request, left, other, options.rules, second.file);
}

function report(
  left: string,
  right: string,
  compared: { comparison: RequestComparison; noise: RequestComparison | null | undefined }[],
  noise: NoiseRecordings | undefined,
): DiffReport {
  const comparisons = compared.map((result) => result.comparison);
  if (noise === undefined) return { left, right, comparisons };
  const paired = compared.flatMap((result) => (result.noise ? [result.noise] : []));
  return { left, right, comparisons, noise: { dir: noise.dir, comparisons: paired, unmatched: compared.length - paired.length } };
}

/**
 * `work` on every item, at most `concurrency` at once; the results in the items' order. The first
 * failure stops the pool: no new request starts, and the error is the diff's (exit 2).
 */
async function inPool<T, R>(items: readonly T[], options: CommonOptions, work: (item: T) => Promise<R>): Promise<R[]> {
  const limit = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_CONCURRENCY));
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let done = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next;
      next += 1;
      try {
        results[index] = await work(items[index]!);
      } catch (error) {
        failed = true;
        throw error;
      }
      done += 1;
      options.onProgress?.(done, items.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Status first, then the headers the rules name, then the bodies (compared even when the statuses differ). */
export function compareExchanges(left: Exchange, right: Exchange, rules: DiffRules): Difference[] {
  const differences: Difference[] = [];
  if (left.status !== right.status) {
    differences.push({ path: 'status', kind: 'changed', left: String(left.status), right: String(right.status) });
  }
  for (const name of rules.headers) {
    const leftValue = left.headers[name];
    const rightValue = right.headers[name];
    const path = `headers.${name}`;
    if (leftValue !== undefined && rightValue === undefined) differences.push({ path, kind: 'missing', left: JSON.stringify(leftValue) });
    else if (leftValue === undefined && rightValue !== undefined) differences.push({ path, kind: 'extra', right: JSON.stringify(rightValue) });
    else if (leftValue !== undefined && rightValue !== undefined && normalizeHeader(leftValue) !== normalizeHeader(rightValue)) {
      differences.push({ path, kind: 'changed', left: JSON.stringify(leftValue), right: JSON.stringify(rightValue) });
    }
  }
  if (left.bodyText === right.bodyText) return differences;
  const leftJson = tryParseJsonText(left.bodyText);
  const rightJson = tryParseJsonText(right.bodyText);
  if (leftJson !== undefined && rightJson !== undefined) differences.push(...diffJson(leftJson, rightJson, rules));
  else
    differences.push({
      path: '$',
      segments: [],
      kind: 'changed',
      left: JSON.stringify(left.bodyText.slice(0, 4000)),
      right: JSON.stringify(right.bodyText.slice(0, 4000)),
    });
  return differences;
}

/** `application/json;charset=UTF-8` and `application/json; charset=utf-8` are one header to a client. */
function normalizeHeader(value: string): string {
  return value
    .toLowerCase()
    .replace(/\s*([;,=])\s*/g, '$1')
    .trim();
}

function redactExchange<T extends Exchange>(exchange: T, redactor: Redactor): T {
  return { ...exchange, bodyText: redactor.redactBodyText(exchange.bodyText) };
}

/** Redacted recordings line up only with answers redacted by the same key. */
function checkRedaction(file: string, recording: Recording, redactor: Redactor | undefined): void {
  if (recording.redaction && !redactor) {
    throw new DiffSetupError(`${file} was redacted at capture: run the diff with --redact and the same REDACTION_KEY`);
  }
  if (recording.redaction && redactor && recording.redaction.keyId !== redactor.keyId) {
    throw new DiffSetupError(`${file} was redacted with another key than this REDACTION_KEY (key id ${recording.redaction.keyId})`);
  }
}
