/**
 * The servers of the benchmark, in a child process so the load generator does not share their event
 * loop: a fast canned FHIR upstream, the facade with and without its cache, a bare undici
 * pass-through proxy, a naive parse-map-serialize proxy, and Hono serving the facade's answers as
 * pre-encoded bytes (the ceilings). Prints their URLs as one JSON line (ServerUrls), then answers
 * `cpu` (its CPU time so far, µs), `memory` (after a full GC) and `stop`.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { parseConfig } from '../../src/config.ts';
import { startService } from '../../src/entry/node/node-service.ts';
import { CACHE_MAX_BYTES, EMPTY_PATIENTS_FROM, LARGE_LEGACY_PATH, LARGE_PATIENT, LEGACY_PATH, type ServerMemory, type ServerUrls } from './constants.ts';
import { startNaiveProxy } from './naive-proxy.ts';
import { emptyBundle, largeBundle, usualBundle } from './upstream-data.ts';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const bundle = usualBundle('1');
const large = largeBundle('1');
const upstream = await listen(
  createServer((req, res) => {
    const patient = Number(/patient=Patient%2F(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
    res.writeHead(200, { 'content-type': 'application/fhir+json' });
    res.end(patient >= EMPTY_PATIENTS_FROM ? emptyBundle : patient === LARGE_PATIENT ? large : bundle);
  }),
);

const facadeEnv = { UPSTREAM_URL: `${upstream}/fhir`, PORT: '0', HOST: '127.0.0.1', CACHE_MAX_BYTES: String(CACHE_MAX_BYTES) };
const cached = await startService(parseConfig(facadeEnv));
const uncached = await startService(parseConfig({ ...facadeEnv, CACHE_ENABLED: 'false' }));

// The floor a proxy pays: forward with undici, pipe the body back, no parsing.
const pool = new Pool(upstream, { connections: 64 });
const passThrough = await listen(
  createServer((req, res) => {
    pool.request({ path: `/fhir${req.url ?? '/'}`, method: 'GET' }).then(
      (answer) => {
        res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json') });
        answer.body.pipe(res);
      },
      () => {
        res.writeHead(502);
        res.end();
      },
    );
  }),
);
const naive = await startNaiveProxy(upstream);

/** The ceiling of a hit: the facade's own answer, pre-encoded, served by Hono with nothing else to do. */
async function ceilingOf(path: string): Promise<{ url: string; bytes: number }> {
  const bytes = new Uint8Array(await (await fetch(`${uncached.url}${path}`)).arrayBuffer());
  const app = new Hono().get('*', (c) => c.body(bytes, 200, { 'content-type': 'application/json; charset=utf-8' }));
  const url = await new Promise<string>((resolve) => {
    serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(`http://127.0.0.1:${info.port}`));
  });
  return { url, bytes: bytes.byteLength };
}
const ceiling = await ceilingOf(LEGACY_PATH);
const largeCeiling = await ceilingOf(LARGE_LEGACY_PATH);

const urls: ServerUrls = {
  upstream,
  cached: cached.url,
  uncached: uncached.url,
  passThrough,
  naive,
  ceiling: ceiling.url,
  largeCeiling: largeCeiling.url,
  bodyBytes: ceiling.bytes,
  largeBodyBytes: largeCeiling.bytes,
  upstreamBytes: bundle.length,
};
console.log(JSON.stringify(urls));
process.on('message', (message) => {
  if (message === 'cpu') {
    const cpu = process.cpuUsage();
    process.send?.(cpu.user + cpu.system);
  }
  if (message === 'memory') void reportMemory();
  if (message === 'stop') process.exit(0);
});

/**
 * What is really held, after full collections (the child runs with --expose-gc): the requests still
 * in flight when a load stops are given a moment to end, and V8 frees the backing stores of
 * collected ArrayBuffers after a collection, in the background, so a second one follows a pause.
 */
async function reportMemory(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await new Promise((resolve) => setTimeout(resolve, 250));
  gc?.();
  const memory = process.memoryUsage();
  const usage: ServerMemory = {
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed + memory.arrayBuffers,
  };
  process.send?.(usage);
}
