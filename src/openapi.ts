/**
 * The OpenAPI 3.1 description of the legacy interface, generated from the route table, the
 * parameter catalog and the mappers' valibot schemas, so it always says what the service does.
 */
import { toJsonSchema, type JsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { servedPaths } from './served-paths.ts';
import { ERROR_CATALOG } from './errors.ts';
import { PARAMETERS, type ParamName } from './params.ts';
import type { LegacyShape } from '../mappers/legacy-shape.ts';
import type { Route } from './route-types.ts';

type Json = Record<string, unknown>;

/** Valibot → JSON Schema 2020-12 (OpenAPI 3.1's dialect); checks with no JSON Schema form are left out. */
function jsonSchema(schema: v.GenericSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, { target: 'draft-2020-12', errorMode: 'ignore' }) as Json;
  return rest as JsonSchema;
}

const OPERATION_OUTCOME: Json = {
  type: 'object',
  required: ['resourceType', 'issue'],
  properties: {
    resourceType: { const: 'OperationOutcome' },
    issue: {
      type: 'array',
      items: {
        type: 'object',
        required: ['severity', 'code', 'diagnostics', 'details'],
        properties: {
          severity: { const: 'error' },
          code: { type: 'string' },
          diagnostics: { type: 'string' },
          details: { type: 'object', properties: { text: { type: 'string', enum: Object.keys(ERROR_CATALOG) } } },
        },
      },
    },
  },
};

function bundleOf(shapeRef: Json, bundleType: string): Json {
  return {
    type: 'object',
    required: ['resourceType', 'id', 'type', 'entry', 'total'],
    additionalProperties: false,
    properties: {
      resourceType: { const: 'Bundle' },
      id: { type: 'string', description: 'Generated per response' },
      type: { const: bundleType },
      entry: {
        type: 'array',
        items: {
          type: 'object',
          required: ['full_url', 'resource'],
          additionalProperties: false,
          properties: { full_url: { type: 'string', pattern: '^/[A-Za-z]+/[A-Za-z0-9\\-.]*$' }, resource: shapeRef },
        },
      },
      total: { type: 'integer', minimum: 0, description: 'Number of entries' },
    },
  };
}

/** The shapes a route answers with: its own, and those of included entries (Provenance). */
function shapesOf(route: Route): LegacyShape[] {
  return [route.shape, ...Object.values(route.kind === 'search' ? (route.includedEntries ?? {}) : {})];
}

function responseSchema(route: Route): Json {
  const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
  if (route.kind === 'read') return ref(route.shape.name);
  if (route.envelope === 'array') return { type: 'array', items: ref(route.shape.name) };
  const shapes = shapesOf(route).map((shape) => ref(shape.name));
  return bundleOf(shapes.length === 1 ? shapes[0]! : { anyOf: shapes }, route.bundleType);
}

/** A parameter's schema; a repeatable one (`date`) is an array of values. */
function parameterSchema(name: ParamName): JsonSchema {
  const one = jsonSchema(PARAMETERS[name].schema);
  return PARAMETERS[name].repeatable ? ({ type: 'array', items: one } as JsonSchema) : one;
}

function parameterObjects(route: Route): Json[] {
  const query = route.params.map((name) => ({
    name,
    in: 'query',
    required: false,
    description: PARAMETERS[name].description,
    schema: parameterSchema(name),
    ...(PARAMETERS[name].repeatable ? { explode: true, style: 'form' } : {}),
  }));
  const id = route.kind === 'read' ? [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9\\-.]{1,64}$' } }] : [];
  return [...id, ...query];
}

function operation(route: Route): Json {
  const errors: Record<string, Json> = {};
  // 401 and 403 can come from every operation: a malformed token, or the upstream refusing one.
  const errorStatuses = [400, 401, 403, 404, ...(route.method === 'POST' ? [413, 415] : []), 414, 500, 502, 504];
  for (const status of errorStatuses) {
    errors[String(status)] = {
      description: 'OperationOutcome',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/OperationOutcome' } } },
    };
  }
  const tokenSchemes = [{ accessToken: [] }, { bearer: [] }];
  return {
    operationId: route.name,
    summary: route.summary,
    description: `Upstream: FHIR ${route.upstream.resourceType}. Without a token: ${
      { optional: 'allowed', 'token-required': '401', 'forbidden-without-token': '403' }[route.auth]
    }.`,
    parameters: parameterObjects(route),
    ...(route.method === 'POST'
      ? {
          requestBody: {
            required: false,
            content: {
              'application/x-www-form-urlencoded': {
                schema: {
                  type: 'object',
                  properties: {
                    ...Object.fromEntries(route.params.map((name) => [name, parameterSchema(name)])),
                    access_token: { type: 'string', description: 'The token may also travel in the form body' },
                  },
                },
              },
            },
          },
        }
      : {}),
    security: route.auth === 'optional' ? [{}, ...tokenSchemes] : tokenSchemes,
    responses: { '200': { description: 'OK', content: { 'application/json': { schema: responseSchema(route) } } }, ...errors },
  };
}

const STATUS_SCHEMA = { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } };
const READINESS_SCHEMA = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { enum: ['ready', 'not-ready'] },
    checks: {
      type: 'object',
      description: 'Each check by name (`started`, `upstream`): `ok`, or what is wrong in a word',
      additionalProperties: { type: 'string' },
    },
  },
};

/** The operator's endpoints beside the legacy interface (src/app.ts), without a token. */
const OPERATIONS_PATHS: Record<string, Json> = {
  '/healthz': {
    get: {
      operationId: 'healthz',
      summary: 'Liveness: the process answers',
      security: [{}],
      responses: { '200': { description: 'Alive', content: { 'application/json': { schema: STATUS_SCHEMA } } } },
    },
  },
  '/readyz': {
    get: {
      operationId: 'readyz',
      summary: 'Readiness: started (the embedded data loaded) and the upstream answering its CapabilityStatement',
      security: [{}],
      responses: {
        '200': { description: 'Ready', content: { 'application/json': { schema: READINESS_SCHEMA } } },
        '503': { description: 'Not ready', content: { 'application/json': { schema: READINESS_SCHEMA } } },
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'metrics',
      summary: 'Prometheus metrics (text exposition format 0.0.4)',
      security: [{}],
      responses: { '200': { description: 'Metrics', content: { 'text/plain': { schema: { type: 'string' } } } } },
    },
  },
};

/** Builds the OpenAPI 3.1 document for a route table. */
export function openApiDocument(routes: readonly Route[]): Json {
  const paths: Record<string, Json> = { ...OPERATIONS_PATHS };
  for (const { route, path } of servedPaths(routes)) {
    const openApiPath = path.replace(/:(\w+)/g, '{$1}');
    // The twin path (with or without /api) is the same operation; operation ids must still be unique.
    const operationId = path === route.path ? route.name : `${route.name}.twin`;
    paths[openApiPath] = { ...paths[openApiPath], [route.method.toLowerCase()]: { ...operation(route), operationId } };
  }
  const shapes = new Map(routes.flatMap(shapesOf).map((shape) => [shape.name, shape]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Clinical Records Read Service (legacy interface, served over FHIR R4)',
      version: '1.0.0',
      description: 'Read-only legacy interface. Generated from the route table; choices where the legacy contract is silent are in docs/decisions.md.',
    },
    paths,
    components: {
      schemas: { ...Object.fromEntries([...shapes].map(([name, shape]) => [name, jsonSchema(shape.schema)])), OperationOutcome: OPERATION_OUTCOME },
      securitySchemes: {
        accessToken: { type: 'apiKey', in: 'query', name: 'access_token', description: 'User OAuth token (spec section 5)' },
        bearer: { type: 'http', scheme: 'bearer', description: 'The same token in an Authorization header' },
      },
    },
  };
}
