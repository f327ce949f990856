/**
 * Diff: replays recordings against a target (or sends a requests file to two systems) and compares
 * each pair of answers — status, the headers the rules name, and the bodies structurally.
 */
import type { DiffRules } from './diff-rules.ts';
import { diffJson, type Difference } from './json-diff.ts';
import { tryParseJsonText } from './json-text.ts';
import { sendRequest, type Exchange } from './http-exchange.ts';
import { readRecordings, requestLine, type Recording } from './recordings.ts';
import type { Redactor } from './redaction.ts';
import type { RequestSpec } from './requests-file.ts';
import { scrubExchange } from './token-scan.ts';

export interface RequestComparison {
  /** `GET /Orders?patient=1` (never a token). */
  request: string;
  /** The recording replayed, in recordings mode. */
  file?: string;
  leftStatus: number;
  rightStatus: number;
  differences: Difference[];
}

export interface DiffReport {
  /** What was compared, for the report's title: a recordings folder or a URL, and a URL. */
  left: string;
  right: string;
  comparisons: RequestComparison[];
}

/** The diff cannot run as asked (exit code 2, like a network failure). */
export class DiffSetupError extends Error {
  override readonly name = 'DiffSetupError';
}

export interface RecordingsDiffOptions {
  recordingsDir: string;
  target: string;
  token: string | undefined;
  rules: DiffRules;
  /** Redacts the target's answers (and unredacted recordings) with the key the recordings were made with. */
  redactor?: Redactor;
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
  const comparisons: RequestComparison[] = [];
  for (const { file, recording } of recordings) {
    // The token is scrubbed from each answer as it arrives, before anything compares, cuts or prints it.
    const tokens = [options.token, ...(options.alsoScrub ?? [])];
    const answer = scrubExchange(await sendRequest(options.target, recording, options.token), tokens);
    const replayed = scrubExchange(recording, tokens);
    const left = redactor && !recording.redaction ? redactExchange(replayed, redactor) : replayed;
    const right = redactor ? redactExchange(answer, redactor) : answer;
    comparisons.push({
      request: requestLine(recording),
      file,
      leftStatus: left.status,
      rightStatus: right.status,
      differences: compareExchanges(left, right, options.rules),
    });
  }
  return { left: options.recordingsDir, right: options.target, comparisons };
}

export interface LiveDiffOptions {
  left: string;
  right: string;
  requests: RequestSpec[];
  leftToken: string | undefined;
  rightToken: string | undefined;
  rules: DiffRules;
  /** Redacts both sides, so that the report holds no personal data either. */
  redactor?: Redactor;
  /** Further tokens scrubbed from both sides besides the two above. */
  alsoScrub?: readonly (string | undefined)[];
}

export async function diffLive(options: LiveDiffOptions): Promise<DiffReport> {
  const comparisons: RequestComparison[] = [];
  for (const request of options.requests) {
    // Both tokens scrubbed from both answers as they arrive, before anything compares, cuts or prints them.
    const tokens = [options.leftToken, options.rightToken, ...(options.alsoScrub ?? [])];
    let left = scrubExchange(await sendRequest(options.left, request, options.leftToken), tokens);
    let right = scrubExchange(await sendRequest(options.right, request, options.rightToken), tokens);
    if (options.redactor) {
      left = redactExchange(left, options.redactor);
      right = redactExchange(right, options.redactor);
    }
    comparisons.push({
      request: requestLine(request),
      leftStatus: left.status,
      rightStatus: right.status,
      differences: compareExchanges(left, right, options.rules),
    });
  }
  return { left: options.left, right: options.right, comparisons };
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
  else differences.push({ path: '$', kind: 'changed', left: JSON.stringify(left.bodyText.slice(0, 4000)), right: JSON.stringify(right.bodyText.slice(0, 4000)) });
  return differences;
}

export interface DiffSummary {
  requests: number;
  requestsWithDifferences: number;
  differences: number;
}

export function summarize(report: DiffReport): DiffSummary {
  return {
    requests: report.comparisons.length,
    requestsWithDifferences: report.comparisons.filter((comparison) => comparison.differences.length > 0).length,
    differences: report.comparisons.reduce((sum, comparison) => sum + comparison.differences.length, 0),
  };
}

/** `application/json;charset=UTF-8` and `application/json; charset=utf-8` are one header to a client. */
function normalizeHeader(value: string): string {
  return value.toLowerCase().replace(/\s*([;,=])\s*/g, '$1').trim();
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
