/**
 * Node-only Transport over undici's Agent + request: measured ~2x the throughput of `fetch` on
 * this hardware (see ../shared/STACK.md). Imported by the Node entry only.
 */
import { Agent } from 'undici';
import type { Transport } from './transport.ts';

/** Creates a pooled undici transport; `close()` releases its sockets. */
export function undiciTransport(options: { connections?: number } = {}): Transport & { close(): Promise<void> } {
  const agent = new Agent({ connections: options.connections ?? 64, keepAliveTimeout: 10_000 });
  const transport: Transport = async ({ url, headers, signal }) => {
    const response = await agent.request({
      origin: new URL(url).origin,
      path: pathAndQuery(url),
      method: 'GET',
      headers,
      signal,
    });
    const contentType = response.headers['content-type'];
    return {
      status: response.statusCode,
      contentType: Array.isArray(contentType) ? contentType[0] : contentType,
      body: await response.body.text(),
    };
  };
  return Object.assign(transport, { close: () => agent.close() });
}

function pathAndQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}
