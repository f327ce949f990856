/**
 * Record: sends each listed request to the legacy system and writes one recording per answer.
 */
import { sendRequest } from './http-exchange.ts';
import { endpointName, recordingFileName, RecordingError, requestLine, writeRecording, type Recording } from './recordings.ts';
import type { Redactor } from './redaction.ts';
import type { RequestSpec } from './requests-file.ts';
import { exchangeContainsToken } from './token-scan.ts';

export interface RecordOptions {
  /** Base URL of the system recorded (the legacy one, or an emulator, or this service). */
  from: string;
  requests: RequestSpec[];
  outDir: string;
  /** The caller's token; the CLI takes it from `LEGACY_ACCESS_TOKEN` only. */
  token: string | undefined;
  /** Redacts every body before it is written. */
  redactor?: Redactor;
  /** Progress lines (no token, no patient data). */
  log?: (line: string) => void;
}

export interface RecordResult {
  files: string[];
}

export async function recordRequests(options: RecordOptions): Promise<RecordResult> {
  const { requests, token, redactor } = options;
  const log = options.log ?? (() => {});
  refuseDuplicateNames(requests);
  if ((token === undefined || token === '') && requests.some((request) => request.withToken)) {
    log('LEGACY_ACCESS_TOKEN is not set: every request is sent without a token');
  }
  const files: string[] = [];
  for (const request of requests) {
    const sentWithToken = request.withToken && token !== undefined && token !== '';
    const answer = await sendRequest(options.from, { ...request, withToken: sentWithToken }, token);
    // A system that echoes the token (in a link, an error message; plain or encoded) would put it into the file.
    if (exchangeContainsToken(answer, token)) {
      throw new RecordingError(`${requestLine(request)}: the answer contains the access token; it is not recorded`);
    }
    const recording: Recording = {
      ...request,
      withToken: sentWithToken,
      endpoint: endpointName(request.path),
      status: answer.status,
      headers: answer.headers,
      bodyText: redactor ? redactor.redactBodyText(answer.bodyText) : answer.bodyText,
      ...(redactor ? { redaction: { method: 'hmac-sha256' as const, keyId: redactor.keyId } } : {}),
    };
    const file = await writeRecording(options.outDir, recording);
    files.push(file);
    log(`${requestLine(request)} → ${answer.status}  ${file}`);
  }
  return { files };
}

/** Two requests that would write the same file: refused before anything is sent. */
function refuseDuplicateNames(requests: RequestSpec[]): void {
  const seen = new Map<string, string>();
  for (const request of requests) {
    const name = recordingFileName(request);
    const earlier = seen.get(name);
    if (earlier !== undefined) {
      throw new RecordingError(`${requestLine(request)} and ${earlier} would both be recorded as ${name}: give them different scenario names`);
    }
    seen.set(name, requestLine(request));
  }
}
