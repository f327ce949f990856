/**
 * The service on its embedded FHIR upstream with the generated patients, over real HTTP, plus a
 * direct FHIR client to the same upstream: tests compare what the legacy interface answers with
 * what the FHIR server holds, instead of hard-coding results.
 */
import * as v from 'valibot';
import { expect } from 'vitest';
import type { LegacyShape } from '../../mappers/legacy-shape.ts';
import type { FhirResource } from '../../src/upstream/fhir-client.ts';
import { startTestService, type TestService } from './facade.ts';

export interface EmbeddedTestService extends TestService {
  /** Every match of a FHIR search on the embedded upstream (all pages), for expectations. */
  fhirSearch(type: string, query?: string): Promise<FhirResource[]>;
  /** GET on the legacy interface, parsed as JSON, with the status checked. */
  getJson<T = unknown>(path: string, status?: number): Promise<T>;
}

export async function startEmbeddedTestService(options: { dataDir?: string; env?: Record<string, string> } = {}): Promise<EmbeddedTestService> {
  const service = await startTestService(options.env, { dataDir: options.dataDir });
  const fhirSearch = async (type: string, query = ''): Promise<FhirResource[]> => {
    const found: FhirResource[] = [];
    let url: string | undefined = `${service.upstreamUrl}/${type}?${query}${query ? '&' : ''}_count=1000`;
    while (url) {
      const bundle = (await (await fetch(url)).json()) as {
        entry?: { resource: FhirResource; search?: { mode?: string } }[];
        link?: { relation: string; url: string }[];
      };
      for (const entry of bundle.entry ?? []) if (entry.search?.mode !== 'include') found.push(entry.resource);
      url = bundle.link?.find((link) => link.relation === 'next')?.url;
    }
    return found;
  };
  const getJson = async <T>(path: string, status = 200): Promise<T> => {
    const response = await service.get(path);
    const body = (await response.json()) as T;
    expect(response.status, `${path} → ${JSON.stringify(body).slice(0, 300)}`).toBe(status);
    return body;
  };
  return Object.assign(service, { fhirSearch, getJson });
}

/** The legacy Bundle envelope (spec 2.1). */
export interface LegacyBundle {
  resourceType: 'Bundle';
  id: string;
  type: string;
  entry: { full_url: string; resource: Record<string, unknown> }[];
  total: number;
}

const bundleSchema = v.strictObject({
  resourceType: v.literal('Bundle'),
  // As the old system writes them (../shared/LEGACY-WIRE.md): 32 lowercase hex, no dashes.
  id: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/)),
  type: v.picklist(['searchset', 'search set']),
  entry: v.array(v.strictObject({ full_url: v.pipe(v.string(), v.regex(/^\/[A-Za-z]+\/[A-Za-z0-9\-.]*$/)), resource: v.unknown() })),
  total: v.number(),
});

/** Asserts a value satisfies a schema, showing the first issues when it does not. */
export function expectValid(schema: v.GenericSchema, value: unknown, label = 'payload'): void {
  const result = v.safeParse(schema, value);
  const issues = result.success ? [] : result.issues.slice(0, 3).map((issue) => `${v.getDotPath(issue)}: ${issue.message}`);
  expect(issues, `${label} does not match its schema`).toEqual([]);
}

/** Asserts a legacy Bundle: envelope, type, total = entries, and each entry against its shape's schema. */
export function expectBundle(body: unknown, type: 'searchset' | 'search set', shapes: Record<string, LegacyShape>): LegacyBundle {
  expectValid(bundleSchema, body, 'Bundle');
  const bundle = body as LegacyBundle;
  expect(bundle.type).toBe(type);
  expect(bundle.total).toBe(bundle.entry.length);
  for (const entry of bundle.entry) {
    const resourceType = entry.full_url.split('/')[1] ?? '';
    const shape = shapes[resourceType];
    expect(shape, `no shape for ${resourceType}`).toBeDefined();
    expectValid(shape!.schema, entry.resource, entry.full_url);
  }
  return bundle;
}

/** The ids in a legacy Bundle's `full_url`s, for one resource type, sorted. */
export function idsOf(bundle: LegacyBundle, resourceType: string): string[] {
  return bundle.entry
    .filter((entry) => entry.full_url.startsWith(`/${resourceType}/`))
    .map((entry) => entry.full_url.split('/')[2] ?? '')
    .sort();
}

export function sortedIds(resources: FhirResource[]): string[] {
  return resources.map((resource) => resource.id ?? '').sort();
}

/** Asserts an OperationOutcome error body with the given status. */
export async function expectOutcome(response: Response, status: number): Promise<void> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { resourceType: string; issue: unknown[] };
  expect(body.resourceType).toBe('OperationOutcome');
  expect(body.issue.length).toBeGreaterThan(0);
}
