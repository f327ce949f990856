/**
 * Caching headers on the wire (docs/decisions.md, "Responses"): a 200 is one caller's patient data,
 * so it carries `Cache-Control: private, no-cache` and `Vary: Authorization`; an error may answer a
 * URL that holds a token, so no cache of any kind may keep it: `Cache-Control: no-store`. A canned
 * upstream gives the records and the faults.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { page, sendJson, startCannedUpstream, type CannedHandler, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const REPORT = { resourceType: 'DiagnosticReport', id: 'r1', status: 'final', subject: { reference: 'Patient/1' } };

/** Searches answer REPORT; reads answer REPORT for r1, 404 for any other id; a search for patient 500 gets an upstream 500. */
const handler: CannedHandler = (request, res) => {
  const url = new URL(request.url, 'http://upstream');
  if (url.searchParams.get('patient') === 'Patient/500') return sendJson(res, 500, { resourceType: 'OperationOutcome' });
  if (url.pathname === '/fhir/DiagnosticReport/r1') return sendJson(res, 200, REPORT);
  if (url.pathname.split('/').length > 3) return sendJson(res, 404, { resourceType: 'OperationOutcome' });
  sendJson(res, 200, page([REPORT]));
};

let upstream: CannedUpstream;
let service: TestService;

beforeAll(async () => {
  upstream = await startCannedUpstream(handler);
  service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir` });
});
afterAll(async () => {
  await service?.close();
  await upstream?.close();
});

const varyNames = (response: Response) => (response.headers.get('vary') ?? '').split(',').map((name) => name.trim().toLowerCase());

describe('a 200 answer', () => {
  it.each([
    ['a search', '/api/DiagnosticReport?patient=1&access_token=hdr-token'],
    ['a by-id read', '/api/DiagnosticReport/r1?access_token=hdr-token'],
    ['a search without a token', '/api/DiagnosticReport?patient=2'],
  ])('%s carries Vary: Authorization and Cache-Control: private, no-cache', async (_label, path) => {
    // Twice: the second answer comes from the response cache and must carry the same headers.
    for (const attempt of ['first', 'cached']) {
      const response = await service.get(path);
      expect(response.status, attempt).toBe(200);
      expect(varyNames(response), attempt).toContain('authorization');
      expect(response.headers.get('cache-control'), attempt).toBe('private, no-cache');
      await response.arrayBuffer();
    }
  });
});

describe('an error answer', () => {
  it.each([
    [400, 'a bad parameter', '/api/DiagnosticReport?patient=1&start_date=2024-13-45&access_token=hdr-token'],
    [401, 'a by-id read without a token', '/api/DiagnosticReport/r1'],
    [404, 'an unknown record id', '/api/DiagnosticReport/r404?access_token=hdr-token'],
    [404, 'an unknown path', '/api/Nothing?access_token=hdr-token'],
    [405, 'a write method', '/api/DiagnosticReport/r1?access_token=hdr-token'],
    [502, 'an upstream failure', '/api/DiagnosticReport?patient=500&access_token=hdr-token'],
  ])('%i for %s carries Cache-Control: no-store', async (status, label, path) => {
    const response = await service.get(path, label === 'a write method' ? { method: 'DELETE' } : undefined);
    expect(response.status).toBe(status);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(((await response.json()) as { resourceType: string }).resourceType).toBe('OperationOutcome');
  });
});

describe('an answer the HTTP server gives before the app runs', () => {
  it('431 for headers past its limit carries Cache-Control: no-store, an x-request-id and a log line', async () => {
    const response = await service.get('/api/DiagnosticReport?access_token=hdr-token', { headers: { 'x-big': 'y'.repeat(100_000) } });
    expect(response.status).toBe(431);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(((await response.json()) as { resourceType: string }).resourceType).toBe('OperationOutcome');
    expect(service.logLines.some((line) => line.includes(`"requestId":"${requestId}"`) && line.includes('"status":431'))).toBe(true);
  });
});
