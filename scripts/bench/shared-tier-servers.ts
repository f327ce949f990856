/**
 * The shared-tier bench's servers, in a child process (as bench/servers.ts, so the load generator
 * does not share their event loop): a redis-server on a free loopback port and three facades on
 * the bench's upstream (argv[2]), all with one CACHE_SECRET. `writer` fills Redis; `reader` is a
 * second process whose own memory cache is too small to keep the answer, so each of its requests is
 * answered from Redis; `down` points at a port where no Redis runs. Prints their URLs as one JSON
 * line; on `stop`, closes them and stops redis-server by its pid.
 */
import { randomBytes } from 'node:crypto';
import { parseConfig } from '../../src/config.ts';
import { startService } from '../../src/entry/node/node-service.ts';
import { startRedisServer } from '../../test/support/redis-server.ts';

const upstream = process.argv[2]!;
const redis = await startRedisServer();
const env = { UPSTREAM_URL: `${upstream}/fhir`, PORT: '0', HOST: '127.0.0.1', CACHE_SECRET: randomBytes(32).toString('base64') };
const writer = await startService(parseConfig({ ...env, CACHE_REDIS_URL: redis.url }));
// 4 KiB holds no 24 KB answer: every request misses this process's memory and reads Redis.
const reader = await startService(parseConfig({ ...env, CACHE_REDIS_URL: redis.url, CACHE_MAX_BYTES: '4096' }));
// Port 1 on loopback: nothing listens there, so every command is refused, as with a Redis that is down.
const down = await startService(parseConfig({ ...env, CACHE_REDIS_URL: 'redis://127.0.0.1:1' }));

console.log(JSON.stringify({ writer: writer.url, reader: reader.url, down: down.url }));
process.on('message', (message) => {
  if (message !== 'stop') return;
  void Promise.all([writer.close(), reader.close(), down.close()])
    .then(() => redis.stop())
    .finally(() => process.exit(0));
});
