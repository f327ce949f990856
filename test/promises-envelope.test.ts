/**
 * The envelope of every search operation on the wire, over real HTTP against the embedded upstream:
 * a Bundle's keys in the order of the spec's examples (2.1: resourceType, id, type, entry, total),
 * each entry `full_url` then `resource`; the array operations (2.10, 2.14) a bare array of records.
 * Key order is checked on the raw JSON text, which keeps it (JSON.parse keeps non-numeric key order).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route } from '../src/route-types.ts';
import { ROUTES } from '../src/routes.ts';
import { expectValid, startEmbeddedTestService, type EmbeddedTestService } from './support/embedded-service.ts';

const BUNDLE_KEYS = ['resourceType', 'id', 'type', 'entry', 'total'];
const ENTRY_KEYS = ['full_url', 'resource'];

let service: EmbeddedTestService;
let patientId: string;

beforeAll(async () => {
  service = await startEmbeddedTestService();
  patientId = (await service.fhirSearch('Patient'))[0]!.id!;
});
afterAll(async () => service?.close());

/** One search operation for the first generated patient (who has records of every kind), GET or POST. */
async function searchBody(route: Route): Promise<unknown> {
  const query = `patient=${patientId}&access_token=envelope-token`;
  const response =
    route.method === 'POST'
      ? await service.get(route.path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: query })
      : await service.get(`${route.path}?${query}`);
  const text = await response.text();
  expect(response.status, `${route.name}: ${text.slice(0, 200)}`).toBe(200);
  return JSON.parse(text);
}

const bundleRoutes = ROUTES.filter((route) => route.kind === 'search' && route.envelope === 'bundle');
const arrayRoutes = ROUTES.filter((route) => route.kind === 'search' && route.envelope === 'array');

describe('a legacy search Bundle', () => {
  it('is served by some routes (the table below is not empty)', () => {
    expect(bundleRoutes.length).toBeGreaterThan(10);
  });

  it.each(bundleRoutes.map((route) => [route.name, route] as const))(
    '%s: keys in the order resourceType, id, type, entry, total; each entry full_url, resource',
    async (_name, route) => {
      const body = (await searchBody(route)) as { entry: Record<string, unknown>[] };
      expect(Object.keys(body)).toEqual(BUNDLE_KEYS);
      expect(body.entry.length, 'the patient has records of this kind').toBeGreaterThan(0);
      for (const entry of body.entry) expect(Object.keys(entry)).toEqual(ENTRY_KEYS);
    },
  );
});

describe('a legacy array answer', () => {
  it('is served by Assessments and Orders', () => {
    expect(arrayRoutes.map((route) => route.name).sort()).toEqual(['Assessments.search', 'Orders.search']);
  });

  it.each(arrayRoutes.map((route) => [route.name, route] as const))('%s: a bare array of records, no Bundle or entry wrapper', async (_name, route) => {
    const body = await searchBody(route);
    expect(Array.isArray(body)).toBe(true);
    const items = body as Record<string, unknown>[];
    expect(items.length, 'the patient has records of this kind').toBeGreaterThan(0);
    for (const item of items) {
      expect(item).not.toHaveProperty('full_url');
      expect(item).not.toHaveProperty('resource');
      expectValid(route.shape.schema, item, route.name);
    }
  });
});
