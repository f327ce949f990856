/**
 * Node-only Transport over undici's Agent + request: measured ~2x the throughput of `fetch` on
 * this hardware (see ../shared/STACK.md). Imported by the Node entry only. undici's `request` does
 * not decode compressed answers: node-decoding.ts does, as a stream, under the same size bound.
 */
import { Agent } from 'undici';
import { decodedBody, decodingFailure, NODE_ACCEPT_ENCODING } from './node-decoding.ts';
import { readLimited } from '../../../ports/bounded-body.ts';
import type { Transport } from '../../../upstream/transport.ts';

/**
 * Creates a pooled undici transport; `close()` releases its sockets once their requests are done,
 * `destroy()` at once (a stop past its deadline). `connections` (per origin)
 * should be at least the bulkhead's total, so that a request holding a bulkhead permit never queues
 * inside undici behind requests that hang (docs/decisions.md, "Upstream resilience").
 */
export function undiciTransport(options: { connections?: number } = {}): Transport & { close(): Promise<void>; destroy(): Promise<void> } {
  const agent = new Agent({ connections: options.connections ?? 64, keepAliveTimeout: 10_000 });
  const transport: Transport = async ({ url, headers, signal, maxBodyBytes }) => {
    const parsed = new URL(url);
    // undici's request() does not follow redirects: a 3xx comes back as it is (and becomes a 502).
    const response = await agent.request({
      origin: parsed.origin,
      path: `${parsed.pathname}${parsed.search}`,
      method: 'GET',
      headers: { ...headers, 'accept-encoding': NODE_ACCEPT_ENCODING },
      signal,
    });
    const contentType = firstValue(response.headers['content-type']);
    // Codings may come on several header lines; together they are one list.
    const encodingLines = response.headers['content-encoding'];
    const contentEncoding = Array.isArray(encodingLines) ? encodingLines.join(', ') : encodingLines;
    // The declared length of an encoded body is its compressed size: only the decoded bytes count.
    const declared = contentEncoding === undefined ? Number(response.headers['content-length'] ?? 0) : 0;
    try {
      return {
        status: response.statusCode,
        contentType,
        body: await readLimited(decodedBody(response.body, contentEncoding), declared, maxBodyBytes),
        header: (name) => firstValue(response.headers[name]),
      };
    } catch (error) {
      throw decodingFailure(error);
    } finally {
      // An abandoned (too large) body must not hold the pooled connection.
      // undici errors a body destroyed unread (an unknown coding): that error is expected, not a crash.
      if (!response.body.readableEnded) response.body.on('error', () => {}).destroy();
    }
  };
  return Object.assign(transport, { close: () => agent.close(), destroy: () => agent.destroy() });
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
