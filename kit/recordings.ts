/**
 * Recordings: one JSON file per request, named `<endpoint>__<scenario>.json` (recordings/README.md
 * documents the format). The body is kept as the exact text received, so numbers as written and
 * key order survive; the request's token is never part of a recording.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as v from 'valibot';
import { JsonSyntaxError, parseJsonText } from './json-text.ts';
import { safeName, type RequestSpec } from './requests-file.ts';

/** The response headers that matter to a client of the legacy interface; the rest differ per response. */
export const RECORDED_HEADERS = ['content-type', 'etag', 'cache-control'] as const;

export interface Recording extends RequestSpec {
  /** The path made file-name safe: `/api/DiagnosticReport` → `api-DiagnosticReport`. */
  endpoint: string;
  status: number;
  /** Lower-case names, only those of `RECORDED_HEADERS` that the answer had. */
  headers: Record<string, string>;
  /** Present when the body was redacted at capture; `keyId` tells which key (without revealing it). */
  redaction?: { method: 'hmac-sha256'; keyId: string };
  /** The response body exactly as received (after redaction when `redaction` is present). */
  bodyText: string;
}

const pairSchema = v.tuple([v.string(), v.string()]);
const recordingSchema = v.object({
  scenario: v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]+$/)),
  endpoint: v.string(),
  method: v.picklist(['GET', 'POST']),
  path: v.pipe(v.string(), v.startsWith('/')),
  query: v.array(pairSchema),
  requestBody: v.optional(v.string()),
  withToken: v.boolean(),
  status: v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599)),
  headers: v.record(v.string(), v.string()),
  redaction: v.optional(v.object({ method: v.literal('hmac-sha256'), keyId: v.string() })),
  bodyText: v.string(),
});

export class RecordingError extends Error {
  override readonly name = 'RecordingError';
}

export function endpointName(path: string): string {
  return safeName(path.replace(/^\/+/, '').replaceAll('/', '-'));
}

export function recordingFileName(request: Pick<Recording, 'path' | 'scenario'>): string {
  return `${endpointName(request.path)}__${request.scenario}.json`;
}

/**
 * The request as a person reads it (and as a requests file line writes it): `GET /Orders?patient=1`.
 * Control characters (a decoded `%0A`, an escape sequence, a bidi override) are shown as `\xHH` or
 * `\uHHHH`, so a request cannot forge or hide lines of the console, the log or the report.
 */
export function requestLine(request: Pick<RequestSpec, 'method' | 'path' | 'query' | 'requestBody'>): string {
  const query = request.query.map(([name, value]) => `${name}=${value}`).join('&');
  const body = request.requestBody ? ` ${request.requestBody}` : '';
  return escapeControls(`${request.method} ${request.path}${query ? `?${query}` : ''}${body}`);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the control and invisible characters escapeControls makes visible.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Key order fixed here (not by whoever built the object), so files diff well in version control. */
export function recordingJson(recording: Recording): string {
  const ordered = {
    scenario: recording.scenario,
    endpoint: recording.endpoint,
    method: recording.method,
    path: recording.path,
    query: recording.query,
    ...(recording.requestBody !== undefined ? { requestBody: recording.requestBody } : {}),
    withToken: recording.withToken,
    status: recording.status,
    headers: recording.headers,
    ...(recording.redaction ? { redaction: recording.redaction } : {}),
    bodyText: recording.bodyText,
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

export async function writeRecording(dir: string, recording: Recording): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, recordingFileName(recording));
  await writeFile(file, recordingJson(recording), 'utf8');
  return file;
}

/**
 * A recording file's content, checked. The errors name the file and the position or field, and
 * quote nothing of the content: a recording may hold patient data.
 */
export function parseRecording(text: string, file: string): Recording {
  let content: unknown;
  try {
    content = JSON.parse(text);
  } catch (error) {
    throw new RecordingError(`${file}: not JSON (${syntaxErrorPosition(text, (error as Error).message)})`);
  }
  const result = v.safeParse(recordingSchema, content);
  if (!result.success) {
    const issue = result.issues[0];
    throw new RecordingError(`${file}: not a recording: ${v.getDotPath(issue) ?? '(root)'}: expected ${issue.expected ?? 'another value'}`);
  }
  return result.output as Recording;
}

/**
 * `line 3, column 14` of the error: the position JSON.parse gives, else where the kit's parser
 * stops. Only the position: JSON.parse's message may quote the text around it.
 */
function syntaxErrorPosition(text: string, message: string): string {
  const given = /\bat position (\d+)/.exec(message);
  let offset = given ? Number(given[1]) : text.length;
  if (!given) {
    try {
      parseJsonText(text);
    } catch (error) {
      if (error instanceof JsonSyntaxError) offset = error.offset;
    }
  }
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

/** Every `*.json` recording of a folder, by file name; other files (the README) are left alone. */
export async function readRecordings(dir: string): Promise<{ file: string; recording: Recording }[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  } catch (error) {
    throw new RecordingError(`recordings folder ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return Promise.all(
    names.map(async (name) => {
      const file = join(dir, name);
      return { file, recording: parseRecording(await readFile(file, 'utf8'), file) };
    }),
  );
}
