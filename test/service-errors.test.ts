/**
 * Errors the service produces itself: unknown path, write methods, over-long URL, bad form body;
 * each a JSON OperationOutcome with the right status. Uses a canned upstream: none of these may
 * reach it.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '../src/errors.ts';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { expectOutcome } from './support/embedded-service.ts';
import { startTestService, type TestService } from './support/facade.ts';

let upstream: CannedUpstream;
let service: TestService;

beforeAll(async () => {
  upstream = await startCannedUpstream((_, res) => sendJson(res, 200, page([])));
  service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, MAX_URL_LENGTH: '1024' });
});
afterAll(async () => {
  await service?.close();
  await upstream?.close();
});

describe('service errors', () => {
  it('answers GET /healthz', async () => {
    expect(await (await service.get('/healthz')).json()).toEqual({ status: 'ok' });
  });

  it.each(['/nothing-here', '/api/Patient', '/api/DiagnosticReport/1/history', '/fhir/Observation'])('answers 404 for the unknown path %s', async (path) => {
    await expectOutcome(await service.get(path), 404);
  });

  it.each([
    ['PUT', '/api/DiagnosticReport/1'],
    ['DELETE', '/Observation'],
    ['POST', '/api/DiagnosticReport'],
    ['PATCH', '/Encounter/1'],
    ['GET', '/api/DiagnosticReport/_search'],
  ])('answers 405 for %s %s', async (method, path) => {
    upstream.received.length = 0;
    const response = await service.get(path, { method });
    expect(response.headers.get('allow')).toMatch(/^(GET, HEAD|POST)$/);
    await expectOutcome(response, 405);
    expect(upstream.received).toHaveLength(0);
  });

  it('answers 414 for an over-long URL', async () => {
    await expectOutcome(await service.get(`/api/DiagnosticReport?code=${'x'.repeat(2000)}`), 414);
  });

  it("answers 414 for a URL far past the limit, and 431 for headers past the HTTP server's own limit", async () => {
    await expectOutcome(await service.get(`/api/DiagnosticReport?code=${'x'.repeat(40_000)}`), 414);
    await expectOutcome(await service.get('/healthz', { headers: { 'x-big': 'y'.repeat(100_000) } }), 431);
  });

  it('answers 413 for a POST _search body over 64 KiB, chunked or not', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const big = `code=${'x'.repeat(70 * 1024)}`;
    await expectOutcome(await service.get('/api/DiagnosticReport/_search', { method: 'POST', headers: form, body: big }), 413);
    const chunked = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 70; i += 1) controller.enqueue(new TextEncoder().encode('x'.repeat(1024)));
        controller.close();
      },
    });
    const init = { method: 'POST', headers: form, body: chunked, duplex: 'half' } as RequestInit;
    await expectOutcome(await service.get('/api/DiagnosticReport/_search', init), 413);
  });

  it('answers 415 for a POST _search body that is not a form', async () => {
    const response = await service.get('/api/DiagnosticReport/_search', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ patient: 1 }),
    });
    await expectOutcome(response, 415);
  });

  it('takes POST _search parameters from the form body and the query, validated alike', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    await expectOutcome(await service.get('/api/DiagnosticReport/_search', { method: 'POST', headers: form, body: 'start_date=nope' }), 400);
    upstream.received.length = 0;
    const ok = await service.get('/api/DiagnosticReport/_search?patient=4', { method: 'POST', headers: form, body: 'code=1234-5&access_token=form-token' });
    expect(ok.status).toBe(200);
    expect(upstream.received[0]?.url).toContain('patient=Patient%2F4');
    expect(upstream.received[0]?.url).toContain('code=1234-5');
    expect(upstream.received[0]?.headers.authorization).toBe('Bearer form-token');
  });

  it('documents the status of every catalog entry in docs/decisions.md', async () => {
    const decisions = await readFile(new URL('../docs/decisions.md', import.meta.url), 'utf8');
    const errorsSection = decisions.slice(decisions.indexOf('## Errors'));
    for (const [code, entry] of Object.entries(ERROR_CATALOG)) {
      expect(errorsSection, `status ${entry.status} of ${code}`).toMatch(new RegExp(`\\| ${entry.status}( / \\d+)? \\||\\| \\d+ / ${entry.status} \\|`));
    }
  });
});
