/**
 * The legacy emulator: serves a recordings folder as if it were the old system, so the workflow
 * (record, diff) can be tried, and clients tested, without one.
 *
 * A request matches a recording by method, path and parameters (query and form body together,
 * in any order, `access_token` left out whatever its case). Among the matches, the one recorded with
 * a token when the request carries one (else without) is preferred, so a recorded 401 and a recorded
 * 200 of the same search can both be served; two recordings of the same request made the same way
 * are warned about at start, and the first by file name is served. The answer is the recorded
 * status, headers and body text, unchanged. The emulator judges no token. No match: 404 with a FHIR
 * OperationOutcome.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readRecordings, requestLine, type Recording } from './recordings.ts';

export interface EmulatorOptions {
  recordingsDir: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Loopback by default: recordings may hold patient data. */
  host?: string;
  log?: (line: string) => void;
  /** Problems with the recordings (two answering the same request); standard error by default. */
  warn?: (line: string) => void;
}

export interface RunningEmulator {
  url: string;
  recordings: number;
  close(): Promise<void>;
}

/** Largest form body read; the legacy searches take a handful of parameters. */
const MAX_FORM_BYTES = 64 * 1024;

export async function startEmulator(options: EmulatorOptions): Promise<RunningEmulator> {
  const log = options.log ?? (() => {});
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const index = new Map<string, { file: string; recording: Recording }[]>();
  const recordings = await readRecordings(options.recordingsDir);
  for (const entry of recordings) {
    const { recording } = entry;
    const key = matchKey(recording.method, recording.path, [...recording.query, ...new URLSearchParams(recording.requestBody ?? '')]);
    const earlier = (index.get(key) ?? []).find((candidate) => candidate.recording.withToken === recording.withToken);
    if (earlier) warn(`warning: ${earlier.file} and ${entry.file} answer the same request (${requestLine(recording)}); ${earlier.file} is served`);
    index.set(key, [...(index.get(key) ?? []), entry]);
  }

  const server = createServer((request, response) => {
    answer(request, response).catch(() => {
      if (!response.headersSent) send(response, 500, outcome('exception', 'the emulator failed to answer'));
      else response.destroy();
    });
  });

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://emulator');
    const method = request.method ?? 'GET';
    const pairs = [...url.searchParams];
    if (method === 'POST' && /^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '')) {
      pairs.push(...new URLSearchParams(await readBody(request)));
    }
    const hasToken = pairs.some(([name, value]) => isTokenName(name) && value !== '') || /^Bearer\s+\S/i.test(request.headers.authorization ?? '');
    const candidates = (index.get(matchKey(method, url.pathname, pairs)) ?? []).map((candidate) => candidate.recording);
    const recording = candidates.find((candidate) => candidate.withToken === hasToken) ?? candidates[0];
    const shown = requestLine({ method: method as Recording['method'], path: url.pathname, query: pairs.filter(([name]) => !isTokenName(name)) });
    if (!recording) {
      log(`${shown} → 404 (no recording)`);
      send(response, 404, outcome('not-found', `no recording for ${shown}`));
      return;
    }
    log(`${shown} → ${recording.status} (${recording.endpoint}__${recording.scenario})`);
    send(response, recording.status, { headers: recording.headers, bodyText: recording.bodyText });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    recordings: recordings.length,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function isTokenName(name: string): boolean {
  return name.toLowerCase() === 'access_token';
}

/**
 * Method, normalized path, and the `[name, value]` pairs sorted, `access_token` left out, all as
 * JSON: a `=` or `&` inside a name or a value cannot make two different requests one key.
 */
export function matchKey(method: string, path: string, pairs: [string, string][]): string {
  const parameters = pairs.filter(([name]) => !isTokenName(name)).sort(([a, x], [b, y]) => compareText(a, b) || compareText(x, y));
  return JSON.stringify([method.toUpperCase(), new URL(path, 'http://emulator').pathname, parameters]);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function send(response: ServerResponse, status: number, content: { headers: Record<string, string>; bodyText: string }): void {
  const bodyless = status === 204 || status === 304 || (status >= 100 && status < 200);
  const body = bodyless ? '' : content.bodyText;
  response.writeHead(status, { ...content.headers, ...(bodyless ? {} : { 'content-length': String(Buffer.byteLength(body)) }) });
  response.end(body);
}

function outcome(code: string, diagnostics: string): { headers: Record<string, string>; bodyText: string } {
  const body = { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code, diagnostics }] };
  return { headers: { 'content-type': 'application/json; charset=utf-8' }, bodyText: JSON.stringify(body) };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new Error('form body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
