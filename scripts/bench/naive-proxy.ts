/**
 * The naive proxy the cache-off facade is compared with: Hono on Node, undici to the same upstream,
 * `JSON.parse` of its Bundle, the facade's own mapper and envelope, `JSON.stringify` of the answer.
 * None of the facade's checks (token, parameters, body scan, plans, resilience, ETag, logs): what a
 * parse-map-serialize proxy of the same payload costs at the least.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { Pool } from 'undici';
import { createMapContext } from '../../mappers/legacy-shape.ts';
import { diagnosticReportSearchEntry } from '../../mappers/diagnostic-report.mapper.ts';
import { legacyBundle } from '../../src/pipeline/envelope.ts';
import type { FhirResource } from '../../src/fhir/primitives.ts';

export async function startNaiveProxy(upstream: string): Promise<string> {
  const pool = new Pool(upstream, { connections: 64 });
  const app = new Hono().get('/api/DiagnosticReport', async (c) => {
    const patient = c.req.query('patient') ?? '';
    const answer = await pool.request({ path: `/fhir/DiagnosticReport?patient=Patient%2F${encodeURIComponent(patient)}&_count=1000`, method: 'GET' });
    const bundle = (await answer.body.json()) as { entry?: { resource: FhirResource }[] };
    const resources = (bundle.entry ?? []).map((entry) => entry.resource);
    const context = createMapContext(resources);
    const entries = resources.map((resource) => ({
      resourceType: resource.resourceType,
      id: resource.id ?? '',
      resource: diagnosticReportSearchEntry.map(resource, context),
    }));
    const body = JSON.stringify(legacyBundle('searchset', entries, crypto.randomUUID().replaceAll('-', '')));
    return c.body(body, 200, { 'content-type': 'application/json; charset=utf-8' });
  });
  return new Promise<string>((resolve) => {
    serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(`http://127.0.0.1:${info.port}`));
  });
}
