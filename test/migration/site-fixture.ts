/**
 * A site-sized diff in small: more requests than the kit's own list (every patient's Observation
 * searches, with a date filter, and one that finds nothing), a target that writes one field in
 * another format of the same value (a real HTTP proxy in front of the service), and headless
 * Chromium to look at the HTML report.
 */
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { isJsonObject, parseJsonText, serializeJson, type JsonValue } from '../../kit/json-text.ts';
import type { EmbeddedTestService } from '../support/embedded-service.ts';
import { kitRequests } from './kit-fixture.ts';

const execFileAsync = promisify(execFile);

/** The kit's requests, and three Observation searches per patient. */
export async function siteRequests(service: EmbeddedTestService): Promise<string> {
  const patients = (await service.fhirSearch('Patient')).map((patient) => patient.id!);
  const lines = patients.flatMap((patient) => [
    `GET /Observation?patient=${patient}   # obs-${patient}`,
    `GET /Observation?patient=${patient}&start_date=2024-01-01   # obs-${patient}-2024`,
    `GET /Observation?patient=${patient}&start_date=2090-01-01   # obs-${patient}-none`,
  ]);
  return `${(await kitRequests(service)).text}\n${lines.join('\n')}\n`;
}

/**
 * The body with every `key` member that holds an instant with a zone rewritten as the same instant
 * in UTC with milliseconds (`2019-03-02T09:30:00-05:00` → `2019-03-02T14:30:00.000+00:00`), and
 * the paths rewritten (`$.entry[3].resource.issued`). Other bodies come back byte for byte.
 */
export function rewriteInstants(bodyText: string, key: string): { bodyText: string; paths: string[] } {
  let body: JsonValue;
  try {
    body = parseJsonText(bodyText);
  } catch {
    return { bodyText, paths: [] };
  }
  const paths: string[] = [];
  const walk = (value: JsonValue, path: string): void => {
    if (Array.isArray(value)) for (const [index, item] of value.entries()) walk(item, `${path}[${index}]`);
    if (!isJsonObject(value)) return;
    for (const [member, memberValue] of value) {
      if (member === key && typeof memberValue === 'string' && /T\d\d:\d\d.*(Z|[+-]\d\d:\d\d)$/.test(memberValue)) {
        const utc = new Date(memberValue).toISOString().replace(/Z$/, '+00:00');
        if (utc !== memberValue && Date.parse(utc) === Date.parse(memberValue)) {
          value.set(member, utc);
          paths.push(`${path}.${member}`);
        }
      } else {
        walk(memberValue, `${path}.${member}`);
      }
    }
  };
  walk(body, '$');
  return paths.length === 0 ? { bodyText, paths } : { bodyText: serializeJson(body), paths };
}

export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

/** An HTTP proxy to `target` that passes each answer's body through `rewrite`, status and the recorded headers kept. */
export async function startRewritingProxy(target: string, rewrite: (bodyText: string) => string): Promise<RunningProxy> {
  const server = createServer((request, response) => {
    forward(request).then(
      ({ status, headers, bodyText }) => {
        response.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(bodyText)) });
        response.end(bodyText);
      },
      () => {
        response.writeHead(502);
        response.end();
      },
    );
  });
  async function forward(request: IncomingMessage) {
    const chunks: Buffer[] = [];
    for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
    const init: RequestInit = { method: request.method ?? 'GET', redirect: 'manual' };
    if (chunks.length > 0) {
      init.body = Buffer.concat(chunks).toString('utf8');
      init.headers = { 'content-type': request.headers['content-type'] ?? 'application/x-www-form-urlencoded' };
    }
    const answer = await fetch(`${target}${request.url ?? '/'}`, init);
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'etag', 'cache-control']) {
      const value = answer.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    return { status: answer.status, headers, bodyText: rewrite(await answer.text()) };
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The Chromium of Debian's package (`chromium`), or another on the PATH; undefined when there is none. */
export async function findChromium(): Promise<string | undefined> {
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const { stdout } = await execFileAsync('sh', ['-c', `command -v ${name}`]);
      if (stdout.trim() !== '') return stdout.trim();
    } catch {
      // not this one
    }
  }
  return undefined;
}

/**
 * Runs headless Chromium on a page. `--no-sandbox`: CI runs as root, where Chromium's sandbox
 * refuses to start; the page is our own report, from a local file.
 */
export async function headlessChromium(chromium: string, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--hide-scrollbars', ...args], {
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}
