/**
 * A canned FHIR upstream for tests that need a fault or a given payload: a real HTTP server on
 * loopback whose answers a test scripts, recording every request it receives.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

export type CannedHandler = (request: ReceivedRequest, response: ServerResponse) => void | Promise<void>;

export interface CannedUpstream {
  /** Origin, e.g. http://127.0.0.1:40123 */
  origin: string;
  /** Every request but those for `/metadata` (the CapabilityStatement, answered apart). */
  received: ReceivedRequest[];
  /** Requests for `[base]/metadata`, answered with METADATA (a statement that declares nothing) unless `answersMetadata` is false. */
  metadataRequests: ReceivedRequest[];
  setHandler(handler: CannedHandler): void;
  close(): Promise<void>;
}

/** A CapabilityStatement that declares no include lists: the service then observes what the server does. */
export const METADATA = {
  resourceType: 'CapabilityStatement',
  status: 'active',
  kind: 'instance',
  fhirVersion: '4.0.1',
  format: ['json'],
  rest: [{ mode: 'server' }],
};

export async function startCannedUpstream(
  handler: CannedHandler = (_, res) => sendJson(res, 404, {}),
  options: { answersMetadata?: boolean } = {},
): Promise<CannedUpstream> {
  let current = handler;
  const received: ReceivedRequest[] = [];
  const metadataRequests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const request = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers };
    if ((options.answersMetadata ?? true) && new URL(request.url, 'http://canned').pathname.endsWith('/metadata')) {
      metadataRequests.push(request);
      sendJson(res, 200, METADATA);
      return;
    }
    received.push(request);
    Promise.resolve(current(request, res)).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    metadataRequests,
    setHandler(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return; // the client gave up (a timeout test)
  res.writeHead(status, { 'content-type': 'application/fhir+json' });
  res.end(JSON.stringify(body));
}

/** A searchset Bundle page of the given resources with an optional next link. */
export function page(resources: object[], next?: string): object {
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    entry: resources.map((resource) => ({ resource, search: { mode: 'match' } })),
    link: next === undefined ? [] : [{ relation: 'next', url: next }],
  };
}

/** Resolves when the response can take more or the client has gone, leaving no listener behind. */
export function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
