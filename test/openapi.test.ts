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
  parameters: { name: string; in: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
  security: object[];
  responses: Record<string, { content: { 'application/json': { schema: Record<string, unknown> } } }>;
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
    const result = await new Validator().validate(document as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every served path of every route, with its parameters, body, security and response schema', async () => {
    const document = await fetchDocument();
    const shapeRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    for (const { route, path } of servedPaths(ROUTES)) {
      const operation = document.paths[path.replace(':id', '{id}')]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${path}`).toBeDefined();
      const op = operation!;
      expect(op.parameters.filter((p) => p.in === 'query').map((p) => p.name)).toEqual([...route.params]);
      expect(op.parameters.some((p) => p.in === 'path' && p.name === 'id' && p.required)).toBe(route.kind === 'read');
      expect(op.requestBody !== undefined).toBe(route.method === 'POST');
      if (op.requestBody)
        expect(Object.keys(op.requestBody.content['application/x-www-form-urlencoded']!.schema.properties)).toEqual([...route.params, 'access_token']);
      // Anonymous access ({}) is offered exactly when the policy allows it.
      expect(op.security.some((requirement) => Object.keys(requirement).length === 0)).toBe(route.auth === 'optional');
      const schema = op.responses['200']!.content['application/json'].schema;
      if (route.kind === 'read') expect(schema).toEqual(shapeRef(route.shape.name));
      else if (route.envelope === 'array') expect(schema).toEqual({ type: 'array', items: shapeRef(route.shape.name) });
      else expect(JSON.stringify(schema)).toContain(JSON.stringify(shapeRef(route.shape.name)));
      for (const status of ['400', '401', '403', '404', '500', '502', '504']) expect(Object.keys(op.responses)).toContain(status);
    }
  });

  it("lists the operator's endpoints: /healthz, /readyz (200 and 503) and /metrics, each answered as documented", async () => {
    const document = await fetchDocument();
    expect(Object.keys(document.paths['/readyz']!.get!.responses).sort()).toEqual(['200', '503']);
    const app = createApp({ client: unusedClient });
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect(document.paths[path]?.get, path).toBeDefined();
      const response = await app.request(path);
      expect(Object.keys(document.paths[path]!.get!.responses), path).toContain(String(response.status));
    }
  });
});
