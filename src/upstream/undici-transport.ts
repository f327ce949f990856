/**
 * Node-only Transport over undici's Agent + request: measured ~2x the throughput of `fetch` on
 * this hardware (see ../shared/STACK.md). Imported by the Node entry only.
 */
import { Agent } from 'undici';
import { readLimited, type Transport } from './transport.ts';

/** Creates a pooled undici transport; `close()` releases its sockets. */
export function undiciTransport(options: { connections?: number } = {}): Transport & { close(): Promise<void> } {
  const agent = new Agent({ connections: options.connections ?? 64, keepAliveTimeout: 10_000 });
  const transport: Transport = async ({ url, headers, signal, maxBodyBytes }) => {
    const parsed = new URL(url);
    // undici's request() does not follow redirects: a 3xx comes back as it is (and becomes a 502).
    const response = await agent.request({ origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, method: 'GET', headers, signal });
    const contentType = response.headers['content-type'];
    const declared = Number(response.headers['content-length'] ?? 0);
    try {
      return {
        status: response.statusCode,
        contentType: Array.isArray(contentType) ? contentType[0] : contentType,
        body: await readLimited(response.body, declared, maxBodyBytes),
      };
    } finally {
      // An abandoned (too large) body must not hold the pooled connection.
      if (!response.body.readableEnded) response.body.destroy();
    }
  };
  return Object.assign(transport, { close: () => agent.close() });
}
