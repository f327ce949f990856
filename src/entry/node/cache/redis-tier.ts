/**
 * The shared tier on Node: Redis or Valkey (`CACHE_REDIS_URL`) through node-redis's core client
 * (`@redis/client`; why this one: docs/decisions.md, "Shared cache tier"). Node-only: imported by
 * src/entry/node/node-service.ts alone, never by anything the Worker bundles.
 *
 * A tier that is down must cost a request nothing: commands are refused at once while the client
 * is disconnected (no offline queue that would hold them until a reconnect), each command carries
 * its own timeout, and the client reconnects in the background, backing off to one attempt a second.
 */
import { createClient, RESP_TYPES } from '@redis/client';
import type { SharedTier } from '../../../cache/shared-tier.ts';

export interface RedisTierOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). Never logged: it may hold a password. */
  url: string;
  /** The caller's bound on a wait (CACHE_L2_TIMEOUT_MS): commands and connecting get a looser one of their own. */
  commandTimeoutMs: number;
}

/** Longest pause between reconnection attempts while the server is down. */
const MAX_RECONNECT_DELAY_MS = 1000;

export function redisTier(options: RedisTierOptions): SharedTier {
  const connectTimeout = Math.max(options.commandTimeoutMs * 4, 500);
  const client = createClient({
    url: options.url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout,
      reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS),
    },
    // Only so that commands to a hung server do not pile up: the caller stops waiting long before
    // (sealed-tier.ts). Not as tight as the caller's bound: this timer fires before a busy event
    // loop reads the reply that did come in time, and would throw it away.
    commandOptions: { timeout: Math.max(options.commandTimeoutMs * 10, 1000) },
  }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
  // Connection errors are reported by the commands that fail (sealed-tier.ts logs an outage once);
  // without a listener, an 'error' event would end the process.
  client.on('error', () => {});
  // The first attempt to connect is awaited by the first commands, so those sent while it is being
  // made are not refused; once it has succeeded, failed or taken too long (a hung server accepts the
  // connection and never answers), nothing waits for the connection again.
  const connecting = new Promise<void>((resolve) => {
    client.once('ready', resolve);
    client.once('error', () => resolve());
    setTimeout(resolve, connectTimeout).unref();
  });
  client.connect().catch(() => {}); // it retries by itself; rejects only when closed before connecting
  return {
    name: 'redis',
    async get(key) {
      await connecting;
      const value = await client.get(key);
      // A copy on an ArrayBuffer of its own: the reply may be a slice of a pooled buffer.
      return value === null ? undefined : new Uint8Array(value);
    },
    async set(key, value, ttlMs) {
      await connecting;
      await client.set(key, Buffer.from(value.buffer, value.byteOffset, value.byteLength), { PX: Math.max(1, Math.round(ttlMs)) });
    },
    async delete(key) {
      await connecting;
      await client.del(key);
    },
    async close() {
      // destroy, not close: close waits for replies a server that is down or hung never sends. Not
      // after `connecting` either: against a hung server, the first connection may never end.
      if (client.isOpen) client.destroy();
    },
  };
}
