/**
 * A personality proxy: a real HTTP server on loopback in front of the embedded FHIR server that
 * answers like one real server does (see personality.ts and catalog.ts). It forwards each request
 * to the embedded server and rewrites the request and the answer: paging links and tokens, `_count`
 * caps, include support, unknown parameters, outcome entries, `total`, reference forms, gzip,
 * throttling; `[base]/metadata` is its own truthful CapabilityStatement. It counts what it did
 * (`stats`), so a test can tell a behaviour really happened.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { personalityCapabilityStatement, searchParamTypes, type CapabilityStatementJson } from './capability-statement.ts';
import { pagingStyle, type PageRequest } from './paging-styles.ts';
import { emptyStats, type Personality, type ProxyStats } from './personality.ts';
import { issue, outcomeAnswer, splitTarget, type ProxyAnswer } from './proxy-answer.ts';
import { applySearchRules } from './search-rules.ts';
import { rewriteSearchset, type Searchset } from './searchset-rewrite.ts';

export interface PersonalityProxy {
  personality: Personality;
  /** The FHIR base where the facade reaches this server, e.g. http://127.0.0.1:40123/some/prefix/fhir */
  baseUrl: string;
  /** e.g. http://127.0.0.1:40123 */
  origin: string;
  stats: ProxyStats;
  close(): Promise<void>;
}

/** Starts `personality` in front of the embedded server at `embeddedBase` (e.g. http://127.0.0.1:40001/fhir). */
export async function startPersonalityProxy(personality: Personality, embeddedBase: string): Promise<PersonalityProxy> {
  const embeddedStatement = (await (await fetch(`${embeddedBase}/metadata`)).json()) as CapabilityStatementJson;
  const types = searchParamTypes(embeddedStatement);
  const basePath = personality.basePath ?? '/fhir';
  const stats = emptyStats();
  // The handler needs the base the server is bound to (its port), known only once it listens.
  let handle: (req: IncomingMessage, body: string) => Promise<ProxyAnswer> = async () => outcomeAnswer(503, 'transient', 'starting');

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      handle(req, Buffer.concat(chunks).toString('utf8'))
        .catch((error: unknown) => outcomeAnswer(500, 'exception', `proxy failure: ${String(error)}`))
        .then((answer) => {
          const encoded = encode(answer, personality.gzip === true && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')));
          if (encoded.gzipped) stats.gzipped += 1;
          res.writeHead(answer.status, encoded.headers);
          res.end(encoded.body);
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const baseUrl = `${origin}${basePath}`;
  const advertisedBase = personality.advertisedBase ?? baseUrl;
  const capabilityStatement = personalityCapabilityStatement(embeddedStatement, personality, advertisedBase);
  const style = pagingStyle(personality.paging ?? 'offset', { embeddedBase, advertisedBase, pageCap: personality.pageCap ?? 1000, expiry: personality.expiry });
  let counted = 0;

  /** One page of a search, from the embedded server, rewritten as this server writes searchsets. */
  const searchPage = async (url: string, request: PageRequest, session: string | undefined, issues: object[], firstPage: boolean): Promise<ProxyAnswer> => {
    const answer = await forward(url);
    if (answer.status !== 200 || (answer.body as { resourceType?: string }).resourceType !== 'Bundle') return answer;
    const body = rewriteSearchset(answer.body as Searchset, { personality, embeddedBase, advertisedBase, style, request, session, firstPage, issues, stats });
    return { ...answer, body };
  };

  handle = async (req, formBody) => {
    stats.requests += 1;
    const { path: fullPath, rawQuery } = splitTarget(req.url ?? '/');
    if (fullPath !== basePath && !fullPath.startsWith(`${basePath}/`)) return outcomeAnswer(404, 'not-found', `No FHIR endpoint at ${fullPath}`);
    const path = fullPath.slice(basePath.length);
    if (path === '/metadata') return { status: 200, body: capabilityStatement };
    // The capability read is left out of the schedule, so the facade's start is deterministic.
    if (personality.throttle && counted++ % personality.throttle.every >= personality.throttle.every - personality.throttle.burst) {
      stats.throttled += 1;
      return throttled(personality.throttle);
    }
    const request = { path, rawQuery };
    const page = style.resolvePage(request);
    if (page !== undefined && 'status' in page) {
      if (page.status === 410) stats.expiredPages += 1;
      else stats.badTokens += 1;
      return page;
    }
    if (page !== undefined) {
      stats.pagesFollowed += 1;
      return searchPage(page.url, request, page.session, [], false);
    }
    const segments = path.split('/').filter(Boolean);
    const resourceType = segments[0];
    const isSearch = resourceType !== undefined && (segments.length === 1 || (segments.length === 2 && segments[1] === '_search'));
    if (!isSearch) return forward(`${embeddedBase}${path}${rawQuery ? `?${rawQuery}` : ''}`);
    const params = [...new URLSearchParams(rawQuery), ...(req.method === 'POST' ? new URLSearchParams(formBody) : [])];
    const ruled = applySearchRules(personality, { resourceType, params, prefer: [req.headers.prefer ?? []].flat().join(', ') }, types, stats);
    if ('status' in ruled) return ruled;
    return searchPage(`${embeddedBase}/${resourceType}?${new URLSearchParams(ruled.params)}`, request, undefined, ruled.issues, true);
  };

  return {
    personality,
    baseUrl,
    origin,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A GET on the embedded server, its JSON answer kept with the headers a client may read. */
async function forward(url: string): Promise<ProxyAnswer> {
  const answer = await fetch(url, { headers: { accept: 'application/fhir+json' } });
  const headers: Record<string, string> = {};
  for (const name of ['etag', 'last-modified', 'allow']) {
    const value = answer.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { status: answer.status, headers, body: JSON.parse(await answer.text()) as unknown };
}

function throttled(throttle: NonNullable<Personality['throttle']>): ProxyAnswer {
  const body =
    throttle.body === 'outcome'
      ? { resourceType: 'OperationOutcome', issue: [issue('error', 'throttled', 'The request was throttled; retry later.')] }
      : undefined;
  return { status: throttle.status, headers: { ...throttle.headers }, body };
}

function encode(answer: ProxyAnswer, gzip: boolean): { headers: Record<string, string>; body: Buffer; gzipped: boolean } {
  const headers: Record<string, string> = { ...answer.headers };
  if (answer.body === undefined) return { headers: { ...headers, 'content-length': '0' }, body: Buffer.alloc(0), gzipped: false };
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  headers['content-type'] = 'application/fhir+json; charset=utf-8';
  if (!gzip) return { headers, body: Buffer.from(text), gzipped: false };
  return { headers: { ...headers, 'content-encoding': 'gzip', vary: 'Accept-Encoding' }, body: gzipSync(text), gzipped: true };
}
