/**
 * The Node HTTP servers' two edges: listening, with a failure that names the setting behind it
 * (a port in use, a host that is not this machine's), and a graceful close: stop accepting, close
 * idle connections and those that never finished sending a request, let requests in progress
 * finish up to a deadline, then close what is left.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { StartError } from './start-error.ts';

/** The settings a listening socket comes from, named in a failure (`PORT`, `HOST`; `EMBEDDED_FHIR_PORT`). */
export interface ListenSettings {
  port: number;
  host: string;
  portName: string;
  hostName: string;
}

/** Listens; a failure is a StartError naming the setting to change, in one line. */
export async function listen(server: Server, settings: ListenSettings): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => reject(listenError(error, settings));
    server.once('error', onError);
    server.listen(settings.port, settings.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function listenError(error: NodeJS.ErrnoException, { port, host, portName, hostName }: ListenSettings): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      return new StartError(`${portName}: port ${port} on ${host} is already in use`);
    case 'EACCES':
      return new StartError(`${portName}: no permission to listen on port ${port}`);
    case 'EADDRNOTAVAIL':
      return new StartError(`${hostName}: ${host} is not an address of this machine`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return new StartError(`${hostName}: ${host} does not resolve to an address`);
    default:
      return new StartError(`${hostName}/${portName}: cannot listen on ${host}:${port} (${error.code ?? error.message})`);
  }
}

export interface GracefulClose {
  /** Closes the server; resolves once every connection is gone. `unfinished`: requests cut at the deadline. */
  close(deadlineMs: number): Promise<{ unfinished: number }>;
}

/**
 * Tracks the server's connections and whether each is in the middle of a request, from the moment
 * it is called (call it before listening). A connection is busy from its request until the answer
 * is sent; one that has sent only part of a request is not busy, so a close does not wait for it.
 */
export function trackConnections(server: Server): GracefulClose {
  const busy = new Map<Socket, number>();
  const open = new Set<Socket>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      busy.delete(socket);
    });
  });
  server.on('request', (request, response) => {
    const socket = request.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    response.once('close', () => {
      const left = (busy.get(socket) ?? 1) - 1;
      if (left > 0) busy.set(socket, left);
      else busy.delete(socket);
      // A kept-alive connection would wait for its next request: after a close it gets none.
      if (closing && left <= 0) socket.destroySoon();
    });
  });
  return {
    async close(deadlineMs) {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of open) if (!busy.has(socket)) socket.destroy();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'deadline'>((resolve) => {
        timer = setTimeout(() => resolve('deadline'), deadlineMs);
      });
      const outcome = await Promise.race([closed.then(() => 'closed' as const), deadline]);
      clearTimeout(timer);
      if (outcome === 'closed') return { unfinished: 0 };
      const unfinished = busy.size;
      for (const socket of open) socket.destroy();
      await closed;
      return { unfinished };
    },
  };
}
