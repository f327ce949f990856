/**
 * What the service sends upstream and how it passes the upstream's refusals on, against a canned
 * upstream that records every request (the embedded server is strict whatever it is sent, so it
 * cannot show a missing header): every search request, later pages included, carries
 * `Prefer: handling=strict` and `Accept: application/fhir+json`; a by-id read is a plain GET of
 * `<Type>/<id>` with the Accept and the caller's token as a Bearer header; in passthrough mode an
 * upstream 401 reaches the caller as 401 and a 403 as 403.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ROUTES } from '../src/routes.ts';
import { page, sendJson, startCannedUpstream, type CannedHandler, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const TOKEN = 'wire-token-3c7e';
const REPORT = { resourceType: 'DiagnosticReport', id: 'r1', status: 'final', subject: { reference: 'Patient/1' } };

/** Searches answer one record and a next link on the first page, so later pages are sent too; reads answer the record. */
const twoPages: CannedHandler = (request, res) => {
  const url = new URL(request.url, 'http://upstream');
  const type = url.pathname.split('/')[2] ?? '';
  if (url.pathname.split('/').length > 3) return sendJson(res, 200, REPORT);
  if (url.searchParams.get('_page') === '2') return sendJson(res, 200, page([]));
  sendJson(res, 200, page([], `/fhir/${type}?_page=2`));
};

let upstream: CannedUpstream;
let service: TestService;

// The cache is off: every request must reach the upstream to be seen there.
beforeAll(async () => {
  upstream = await startCannedUpstream(twoPages);
  service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, CACHE_ENABLED: 'false' });
});
afterAll(async () => {
  await service?.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.setHandler(twoPages);
  upstream.received.length = 0;
});

const searchRoutes = ROUTES.filter((route) => route.kind === 'search' && route.method === 'GET');

describe('every upstream search request', () => {
  it.each(searchRoutes.map((route) => [route.name, route.path] as const))(
    '%s: carries Prefer: handling=strict and Accept: application/fhir+json on every page',
    async (_name, path) => {
      const response = await service.get(`${path}?patient=1&access_token=${TOKEN}`);
      expect(response.status).toBe(200);
      expect(upstream.received.map((request) => new URL(request.url, upstream.origin).searchParams.get('_page'))).toEqual([null, '2']);
      for (const request of upstream.received) {
        expect(request.headers.prefer, request.url).toBe('handling=strict');
        expect(request.headers.accept, request.url).toBe('application/fhir+json');
        expect(request.headers.authorization, request.url).toBe(`Bearer ${TOKEN}`);
      }
    },
  );

  it('carries them on a by-id read made as an _id search (a record with included ones)', async () => {
    await service.get(`/api/CarePlan/7?access_token=${TOKEN}`);
    expect(upstream.received.length).toBeGreaterThan(0);
    expect(new URL(upstream.received[0]!.url, upstream.origin).searchParams.get('_id')).toBe('7');
    for (const request of upstream.received) {
      expect(request.headers.prefer, request.url).toBe('handling=strict');
      expect(request.headers.accept, request.url).toBe('application/fhir+json');
    }
  });
});

describe('an upstream by-id read', () => {
  it('is a GET of <Type>/<id> with Accept: application/fhir+json and the token as a Bearer header only', async () => {
    const response = await service.get(`/api/DiagnosticReport/r1?access_token=${TOKEN}`);
    expect(response.status).toBe(200);
    expect(upstream.received).toHaveLength(1);
    const [request] = upstream.received;
    expect(request!.method).toBe('GET');
    expect(request!.url).toBe('/fhir/DiagnosticReport/r1');
    expect(request!.headers.accept).toBe('application/fhir+json');
    expect(request!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });
});

interface Outcome {
  resourceType: string;
  issue: { code: string }[];
}

describe('in passthrough mode, an upstream refusal', () => {
  const refusals = [
    { status: 401, issue: 'login' },
    { status: 403, issue: 'forbidden' },
  ];
  const paths = ['/api/DiagnosticReport?patient=1', '/api/DiagnosticReport/r1?patient=1', '/Observation?patient=1'];

  it.each(refusals.flatMap((refusal) => paths.map((path) => ({ ...refusal, path }))))(
    'upstream $status on $path reaches the caller as $status ($issue)',
    async ({ status, issue, path }) => {
      upstream.setHandler((_, res) =>
        sendJson(res, status, { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'security', diagnostics: 'upstream internals' }] }),
      );
      const response = await service.get(`${path}&access_token=${TOKEN}`);
      expect(upstream.received).toHaveLength(1);
      expect(response.status).toBe(status);
      const body = (await response.json()) as Outcome;
      expect(body.resourceType).toBe('OperationOutcome');
      expect(body.issue[0]?.code).toBe(issue);
      expect(JSON.stringify(body)).not.toMatch(/upstream internals|wire-token/);
    },
  );
});
