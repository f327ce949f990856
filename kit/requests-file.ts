/**
 * The requests file: what to record (and, in live mode, to compare), one request a line.
 *
 * ```text
 * # comment lines and blank lines are skipped
 * GET /api/DiagnosticReport?patient=1&start_date=2024-01-01   # dr-2024
 * GET /Observation?patient=1                                  # observation-no-token no-token
 * POST /api/AlleryIntolerance/_search patient=1               # allergy-post
 * ```
 * After `#`: the scenario name (words joined by `-`; else a name is derived from the request), and the word `no-token`
 * to send that request without the token (to record a 401 or 403). A POST may carry a form body
 * (`application/x-www-form-urlencoded`, no spaces). No line may hold an `access_token`: the token
 * comes from the environment only.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export type RecordedMethod = 'GET' | 'POST';

export interface RequestSpec {
  method: RecordedMethod;
  /** As written, starting with `/`. */
  path: string;
  /** Decoded name/value pairs in request order, never `access_token`. */
  query: [string, string][];
  /** A POST's form body as written (never holding `access_token`); absent for GET. */
  requestBody?: string;
  scenario: string;
  /** Whether the request is sent with the token (false for lines marked `no-token`). */
  withToken: boolean;
}

export class RequestsFileError extends Error {
  override readonly name = 'RequestsFileError';
}

const LINE = /^(\S+)\s+(\S+)(?:\s+([^#\s]\S*))?\s*(?:#(.*))?$/;

/** Every request of the file; throws one `RequestsFileError` listing every bad line, before anything is sent. */
export function parseRequestsFile(text: string): RequestSpec[] {
  const requests: RequestSpec[] = [];
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    try {
      requests.push(parseRequestLine(line));
    } catch (error) {
      if (!(error instanceof RequestsFileError)) throw error;
      errors.push(`line ${index + 1}: ${error.message}`);
    }
  });
  if (errors.length > 0) throw new RequestsFileError(errors.join('\n'));
  return requests;
}

export async function readRequestsFile(file: string): Promise<RequestSpec[]> {
  return parseRequestsFile(await readFile(file, 'utf8'));
}

function parseRequestLine(line: string): RequestSpec {
  const match = LINE.exec(line);
  if (!match) throw new RequestsFileError('expected "GET /path?query" or "POST /path form-body", then optionally "# scenario"');
  const [, methodText = '', target = '', body, comment = ''] = match;
  const method = methodText.toUpperCase();
  if (method !== 'GET' && method !== 'POST') throw new RequestsFileError(`method ${methodText}: only GET and POST are recorded`);
  if (!target.startsWith('/') || target.startsWith('//')) throw new RequestsFileError(`${target}: the path must start with one "/"`);
  if (target.includes('#')) throw new RequestsFileError(`${target}: put a space before the "#" of the scenario`);
  if (body !== undefined && method !== 'POST') throw new RequestsFileError('only a POST takes a body');
  const questionMark = target.indexOf('?');
  const path = questionMark < 0 ? target : target.slice(0, questionMark);
  const query = [...new URLSearchParams(questionMark < 0 ? '' : target.slice(questionMark + 1))];
  const bodyPairs = [...new URLSearchParams(body ?? '')];
  if ([...query, ...bodyPairs].some(([name]) => name.toLowerCase() === 'access_token')) {
    throw new RequestsFileError('holds an access_token: tokens never go into files; set LEGACY_ACCESS_TOKEN instead');
  }
  const words = comment
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '');
  const withToken = !words.includes('no-token');
  const named = words.filter((word) => word !== 'no-token').join('-');
  const spec: Omit<RequestSpec, 'scenario'> = { method, path, query, withToken, ...(method === 'POST' ? { requestBody: body ?? '' } : {}) };
  return { ...spec, scenario: named === '' ? derivedScenario(spec) : safeName(named) };
}

/** A short hash of the request: the same line always gets the same name, different lines different ones. */
function derivedScenario(spec: Omit<RequestSpec, 'scenario'>): string {
  const canonical = JSON.stringify([spec.method, spec.path, spec.query, spec.requestBody ?? null, spec.withToken]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 10);
}

/** A name usable in a file name on every system. */
export function safeName(text: string): string {
  const name = text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '');
  return name === '' ? 'root' : name;
}
