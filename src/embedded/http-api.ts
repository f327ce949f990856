// The FHIR REST interface of the embedded server (read-only): read, vread, search by GET and by
// POST _search, and metadata, under `/fhir`. Everything else is answered with an
// OperationOutcome, as a real FHIR server does, so the facade sees the same errors it would get
// from a remote upstream.
import type { CapabilityStatement, OperationOutcome, Resource } from '@medplum/fhirtypes';
import { OperationOutcomeError, getStatus, isOk, isOperationOutcome } from '@medplum/core';
import { FhirRouter, makeSimpleRequest } from '@medplum/fhir-router';
import { Hono } from 'hono';
import type { Context } from 'hono';
import { isKnownResourceType, listSearchParams } from './definitions.ts';
import type { SearchContext } from './search-executor.ts';
import { executeSearch } from './search-executor.ts';
import type { PagingLimits } from './search-request.ts';
import { SUPPORTED_PARAM_TYPES, parseSearch } from './search-request.ts';

export interface FhirApiContext extends SearchContext {
  readonly limits: PagingLimits;
}

/** Stateless apart from its route table: one per process serves every embedded server. */
const fhirRouter = new FhirRouter();
const FHIR_JSON = 'application/fhir+json; charset=utf-8';
const FHIR_ID = /^[A-Za-z0-9\-.]{1,64}$/;
const READ_METHODS = 'GET, HEAD';

export function createFhirApp(ctx: FhirApiContext): Hono {
  const app = new Hono();
  app.all('*', async (c) => {
    try {
      return await route(ctx, c);
    } catch (err) {
      return errorResponse(err);
    }
  });
  return app;
}

async function route(ctx: FhirApiContext, c: Context): Promise<Response> {
  const url = new URL(c.req.url);
  const segments = fhirPathSegments(url.pathname);
  if (!segments) {
    return outcome(404, 'not-found', `No FHIR endpoint at ${url.pathname} (the base is /fhir)`);
  }
  const method = c.req.method;
  const [type, second, third, fourth, ...rest] = segments;

  if (method === 'POST' && type && second === '_search' && segments.length === 2) {
    checkType(type);
    const body = await formBody(c);
    return fhirResponse(executeSearch(ctx, parseSearch(type, [...queryPairs(url), ...body], ctx.limits, lenient(c))));
  }
  if (method !== 'GET' && method !== 'HEAD') {
    const allow = type && second === '_search' ? `${READ_METHODS}, POST` : READ_METHODS;
    return outcome(405, 'not-supported', `${method} is not supported: this server is read-only`, { Allow: allow });
  }
  if (!type) {
    return outcome(400, 'not-supported', 'System-level search is not supported; search one resource type');
  }
  if (type === 'metadata' && segments.length === 1) {
    return fhirResponse(capabilityStatement(ctx));
  }
  checkType(type);
  if (second === undefined || (second === '_search' && segments.length === 2)) {
    return fhirResponse(executeSearch(ctx, parseSearch(type, queryPairs(url), ctx.limits, lenient(c))));
  }
  if (third === undefined) {
    return read(ctx, type, second);
  }
  if (third === '_history' && fourth !== undefined && rest.length === 0) {
    return read(ctx, type, second, fourth);
  }
  return outcome(404, 'not-found', `Unsupported FHIR interaction: ${url.pathname}`);
}

/** The path below `/fhir`, split on `/`, or undefined when the path is outside the FHIR base. */
function fhirPathSegments(pathname: string): string[] | undefined {
  if (pathname !== '/fhir' && !pathname.startsWith('/fhir/')) {
    return undefined;
  }
  try {
    return pathname.slice('/fhir'.length).split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    throw new HttpOutcome(400, 'invalid', 'Malformed percent-encoding in the request path');
  }
}

function checkType(type: string): void {
  if (!isKnownResourceType(type)) {
    throw new HttpOutcome(404, 'not-found', `Unknown resource type: ${type}`);
  }
}

async function read(ctx: FhirApiContext, type: string, id: string, versionId?: string): Promise<Response> {
  const what = `${type}/${id}${versionId ? `/_history/${versionId}` : ''}`;
  if (!FHIR_ID.test(id)) {
    return outcome(404, 'not-found', `Resource ${what} not found (not a valid FHIR id)`);
  }
  // Reads go through Medplum's own FhirRouter over the repository; only search needed our layer.
  const [result, found] = await fhirRouter.handleRequest(makeSimpleRequest('GET', `/${what}`), ctx.store);
  if (!isOk(result) || !found) {
    const status = getStatus(result);
    return status === 404 || status === 410 ? outcome(404, 'not-found', `Resource ${what} not found`) : errorResponse(new OperationOutcomeError(result));
  }
  const resource: Resource = found;
  const headers: Record<string, string> = {};
  if (resource.meta?.versionId) {
    headers.ETag = `W/"${resource.meta.versionId}"`;
  }
  if (resource.meta?.lastUpdated) {
    headers['Last-Modified'] = new Date(resource.meta.lastUpdated).toUTCString();
  }
  return fhirResponse(resource, 200, headers);
}

function queryPairs(url: URL): [string, string][] {
  return [...url.searchParams.entries()];
}

/** POST _search carries its parameters as an application/x-www-form-urlencoded body. */
async function formBody(c: Context): Promise<[string, string][]> {
  const text = await c.req.text();
  if (text.trim() === '') {
    return [];
  }
  const contentType = c.req.header('content-type') ?? '';
  if (!contentType.startsWith('application/x-www-form-urlencoded')) {
    throw new HttpOutcome(415, 'not-supported', 'POST _search takes an application/x-www-form-urlencoded body');
  }
  return [...new URLSearchParams(text).entries()];
}

/** `Prefer: handling=lenient` asks the server to ignore unknown search parameters. */
function lenient(c: Context): boolean {
  return /handling\s*=\s*lenient/i.test(c.req.header('prefer') ?? '');
}

function capabilityStatement(ctx: FhirApiContext): CapabilityStatement {
  const counts = ctx.store.countByType();
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date: new Date().toISOString(),
    kind: 'instance',
    software: { name: 'Embedded FHIR server (on Medplum MemoryRepository)' },
    implementation: { description: 'Embedded read-only FHIR R4 server', url: ctx.baseUrl },
    fhirVersion: '4.0.1',
    format: ['json'],
    rest: [
      {
        mode: 'server',
        resource: Object.keys(counts)
          .sort()
          .map((type) => ({
            type,
            interaction: [{ code: 'read' }, { code: 'vread' }, { code: 'search-type' }],
            searchParam: listSearchParams(type)
              .filter((p) => SUPPORTED_PARAM_TYPES.has(p.type ?? ''))
              .map((p) => ({ name: p.code ?? '', type: p.type ?? 'string' })),
          })),
      },
    ],
  } as CapabilityStatement;
}

function fhirResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': FHIR_JSON, ...headers } });
}

/** An error answered with this HTTP status and an OperationOutcome. */
class HttpOutcome extends Error {
  constructor(
    readonly status: number,
    readonly code: IssueCode,
    message: string,
  ) {
    super(message);
  }
}

type IssueCode = OperationOutcome['issue'][number]['code'];

function outcome(status: number, code: IssueCode, text: string, headers: Record<string, string> = {}): Response {
  const body: OperationOutcome = {
    resourceType: 'OperationOutcome',
    issue: [{ severity: 'error', code, details: { text }, diagnostics: text }],
  };
  return fhirResponse(body, status, headers);
}

function errorResponse(err: unknown): Response {
  if (err instanceof HttpOutcome) {
    return outcome(err.status, err.code, err.message);
  }
  if (err instanceof OperationOutcomeError && isOperationOutcome(err.outcome)) {
    // Medplum encodes the HTTP status in OperationOutcome.id; it is not part of the answer
    const { id: _id, ...body } = err.outcome;
    const issue = body.issue.map((i) => ({ ...i, diagnostics: i.diagnostics ?? i.details?.text }));
    return fhirResponse({ ...body, issue }, getStatus(err.outcome));
  }
  // Unexpected failures: no details in the response (they could echo stored data)
  return outcome(500, 'exception', 'Internal server error');
}
