/**
 * The servers of the benchmark, in a child process so the load generator does not share their event
 * loop: a fast canned FHIR upstream, the facade with and without its cache, a bare undici
 * pass-through proxy, and Hono serving the facade's answer pre-serialized (the ceiling). Prints their
 * URLs as one JSON line, then answers `rss` messages with its peak RSS.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { parseConfig } from '../../src/config.ts';
import { generateSyntheticBundles } from '../../src/embedded/seed/generate.ts';
import { startService } from '../../src/entry/node/node-service.ts';

import { CACHE_MAX_BYTES, EMPTY_PATIENTS_FROM, LEGACY_PATH } from './constants.ts';

/** A realistic upstream answer: 20 DiagnosticReports of a generated patient, as a searchset (~20 KB). */
function upstreamBundle(): string {
  const reports = generateSyntheticBundles({ patients: 1 })
    .flatMap((bundle) => bundle.entry ?? [])
    .map((entry) => entry.resource)
    .filter((resource) => resource?.resourceType === 'DiagnosticReport')
    .slice(0, 20)
    .map((resource, index) => ({ ...resource, id: String(index + 1), subject: { reference: 'Patient/1' }, meta: { versionId: '1', lastUpdated: '2025-01-01T00:00:00Z' } }));
  return JSON.stringify({
    resourceType: 'Bundle',
    type: 'searchset',
    total: reports.length,
    entry: reports.map((resource) => ({ fullUrl: `http://upstream/fhir/DiagnosticReport/${resource.id}`, resource, search: { mode: 'match' } })),
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const bundle = upstreamBundle();
const emptyBundle = JSON.stringify({ resourceType: 'Bundle', type: 'searchset', total: 0, entry: [] });
const upstream = await listen(
  createServer((req, res) => {
    const patient = Number(/patient=Patient%2F(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
    res.writeHead(200, { 'content-type': 'application/fhir+json' });
    res.end(patient >= EMPTY_PATIENTS_FROM ? emptyBundle : bundle);
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

// The ceiling: the facade's own answer, served as pre-serialized bytes by Hono.
const legacyBytes = await (await fetch(`${uncached.url}${LEGACY_PATH}`)).text();
const ceilingApp = new Hono().get('*', (c) => c.body(legacyBytes, 200, { 'content-type': 'application/json; charset=utf-8' }));
const ceiling = await new Promise<string>((resolve) => {
  const server = serve({ fetch: ceilingApp.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(`http://127.0.0.1:${info.port}`));
  void server;
});

console.log(JSON.stringify({ upstream, cached: cached.url, uncached: uncached.url, passThrough, ceiling, bodyBytes: legacyBytes.length, upstreamBytes: bundle.length }));
process.on('message', (message) => {
  if (message === 'rss') {
    // After a full collection (the child runs with --expose-gc), heapUsed is what is really held.
    (globalThis as { gc?: () => void }).gc?.();
    const memory = process.memoryUsage();
    process.send?.({ peakRssBytes: process.resourceUsage().maxRSS * 1024, rssBytes: memory.rss, heapUsedBytes: memory.heapUsed });
  }
  if (message === 'stop') process.exit(0);
});
