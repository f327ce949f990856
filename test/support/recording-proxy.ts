/**
 * A recording HTTP proxy in front of a real upstream (the embedded FHIR server): it forwards each
 * GET as it came (path, query, headers) and records it, so a test sees what the service asked of a
 * server that answers like a real one. Next links that name the upstream's own origin are re-based
 * onto the proxy by the service itself (src/upstream/next-link.ts), so every page passes through here.
 * An `intercept` makes it a server that differs from the one behind it in one way (answers some
 * requests itself, or forwards them changed), as a real server of another make would.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReceivedRequest } from './canned-upstream.ts';

export interface RecordingProxy {
  /** Origin of the proxy, e.g. http://127.0.0.1:40123 */
  origin: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/** What the proxy does with one request: answer it itself, forward another URL (path and query), or (undefined) forward it as it came. */
export type Interception = { answer: { status: number; body: unknown } } | { forward: URL } | undefined;

/** Starts a proxy to `targetOrigin` (e.g. the embedded upstream's origin) on a free loopback port. */
export async function startRecordingProxy(targetOrigin: string, intercept?: (url: URL) => Interception): Promise<RecordingProxy> {
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const request = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers };
    received.push(request);
    const interception = intercept?.(new URL(request.url, targetOrigin));
    if (interception !== undefined && 'answer' in interception) {
      res.writeHead(interception.answer.status, { 'content-type': 'application/fhir+json' });
      res.end(JSON.stringify(interception.answer.body));
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter((pair): pair is [string, string] => typeof pair[1] === 'string' && !['host', 'connection'].includes(pair[0])),
    );
    const forwarded = interception === undefined ? request.url : interception.forward.pathname + interception.forward.search;
    fetch(`${targetOrigin}${forwarded}`, { method: request.method, headers })
      .then(async (answer) => {
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/fhir+json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
