/**
 * A real Redis server for tests: Debian's `redis-server` on a free loopback port, with nothing
 * written to disk, stopped (and paused, to play a hung server) by its pid. Where `redis-server` is
 * not installed, `redisMissing` says so and the suites using it are reported skipped with that
 * reason (test/support/describe-unless.ts); `.ci/run` installs it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, Socket } from 'node:net';
import { createClient, RESP_TYPES } from '@redis/client';

/** Why the Redis tests cannot run here, or undefined when they can. */
export const redisMissing: string | undefined = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'pipe' });
    return undefined;
  } catch {
    return 'redis-server is not installed (apt-get install redis-server; .ci/run installs it)';
  }
})();

export interface RedisServer {
  /** e.g. redis://127.0.0.1:40123 */
  url: string;
  port: number;
  /** Every key with its value, as raw bytes: what a dump of the server shows. */
  dump(): Promise<{ key: string; value: Buffer; pttl: number }[]>;
  /** Writes `value` under `key` (to plant an entry). */
  plant(key: string, value: Buffer): Promise<void>;
  /** Pauses the server (SIGSTOP): it accepts nothing and answers nothing, as a hung server. */
  pause(): void;
  resume(): void;
  /** Stops the server (SIGTERM to its pid) and waits for it to exit. */
  stop(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitForPong(port, child, () => output);
  const url = `redis://127.0.0.1:${port}`;
  const withClient = async <T>(work: (client: ReturnType<typeof bufferClient>) => Promise<T>): Promise<T> => {
    const client = bufferClient(url);
    client.on('error', () => {});
    await client.connect();
    try {
      return await work(client);
    } finally {
      client.destroy();
    }
  };
  let stopped = false;
  return {
    url,
    port,
    dump: () =>
      withClient(async (client) => {
        const entries: { key: string; value: Buffer; pttl: number }[] = [];
        for await (const keys of client.scanIterator({ MATCH: '*', COUNT: 100 })) {
          for (const key of keys) {
            const name = key.toString();
            const value = await client.get(name);
            if (value !== null) entries.push({ key: name, value, pttl: await client.pTTL(name) });
          }
        }
        return entries;
      }),
    plant: (key, value) => withClient(async (client) => void (await client.set(key, value))),
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    async stop() {
      if (stopped) return;
      stopped = true;
      child.kill('SIGCONT'); // a paused server would not act on SIGTERM
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function bufferClient(url: string) {
  return createClient({ url, socket: { reconnectStrategy: false } }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
}

/** A port free on loopback now (bound and released: the server binds it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once the server answers PING with PONG; fails with its output if it exits or takes over 10 s. */
async function waitForPong(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${output().slice(-500)}`);
    if (await pong(port)) return;
    if (Date.now() > until) throw new Error(`redis-server did not answer PING: ${output().slice(-500)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}
