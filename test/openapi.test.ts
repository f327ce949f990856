/**
 * GET /openapi.json: a valid OpenAPI 3.1 document generated from the route table, listing every
 * served path with its parameters and response schema.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { ROUTES } from '../src/routes.ts';
import { servedPaths } from '../src/served-paths.ts';
import { FhirClient } from '../src/upstream/fhir-client.ts';

const unusedClient = new FhirClient({
  baseUrl: 'http://127.0.0.1:9/fhir',
  transport: () => Promise.reject(new Error('the OpenAPI document needs no upstream')),
  timeoutMs: 1000,
  maxPages: 1,
  pageSize: 1,
  maxBodyBytes: 1024,
});

interface Operation {
  operationId: string;
  parameters: { name: string; in: string }[];
  responses: Record<string, { content: { 'application/json': { schema: object } } }>;
}

async function fetchDocument(): Promise<{ openapi: string; paths: Record<string, Record<string, Operation>> }> {
  const response = await createApp({ client: unusedClient }).request('/openapi.json');
  expect(response.status).toBe(200);
  return (await response.json()) as { openapi: string; paths: Record<string, Record<string, Operation>> };
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const document = await fetchDocument();
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every served path of every route, with its parameters and 200 response schema', async () => {
    const document = await fetchDocument();
    for (const { route, path } of servedPaths(ROUTES)) {
      const operation = document.paths[path.replace(':id', '{id}')]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${path}`).toBeDefined();
      const names = operation!.parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
      expect(names).toEqual([...route.params]);
      expect(operation!.responses['200']?.content['application/json'].schema).toBeDefined();
      expect(Object.keys(operation!.responses)).toContain(route.auth === 'forbidden-without-token' ? '403' : '400');
    }
  });
});
