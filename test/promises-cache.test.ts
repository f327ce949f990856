/**
 * The cache's refusal rule with the production wiring (src/cache/cache-config.ts), over real HTTP:
 * when the background refresh of a stale entry is refused by the upstream (401, 403) or finds the
 * record gone (404), the entry is forgotten at once and its old body is never served again; any
 * other refresh failure (500) keeps serving the stale body within its window (docs/decisions.md,
 * "Response cache"). A tiny TTL and a long stale window make the entry stale at once and keep it
 * servable for the whole test, so only the refusal rule decides what the last read gets.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const TTL_MS = 20;
const REPORT = { resourceType: 'DiagnosticReport', id: 'r-cached-7d1', status: 'final', subject: { reference: 'Patient/1' } };

let upstream: CannedUpstream | undefined;
let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  await upstream?.close();
  service = undefined;
  upstream = undefined;
});

interface LogLine {
  message: string;
  cache?: string;
  code?: string;
}
const logOf = (svc: TestService) => svc.logLines.map((line) => JSON.parse(line) as LogLine);
const cacheOutcomes = (svc: TestService) =>
  logOf(svc)
    .filter((line) => line.message === 'request')
    .map((line) => line.cache);
const refreshFailures = (svc: TestService) => logOf(svc).filter((line) => line.message === 'cache refresh failed');

/**
 * Caches a 200 for `path`, makes the upstream answer `status` from then on, reads once more after the
 * TTL (served stale, which starts the refresh), waits for the refresh to have failed, and returns the
 * read after that.
 */
async function readAfterFailedRefresh(path: string, status: number): Promise<Response> {
  upstream = await startCannedUpstream((request, res) => (request.url.includes('?') ? sendJson(res, 200, page([REPORT])) : sendJson(res, 200, REPORT)));
  const svc = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, CACHE_TTL_MS: String(TTL_MS), CACHE_STALE_MS: '600000' });
  service = svc;

  const first = await svc.get(path);
  expect(first.status).toBe(200);
  expect(await first.text()).toContain(REPORT.id);
  const cachedAt = Date.now();

  upstream.setHandler((_, res) => sendJson(res, status, { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'security' }] }));
  await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(cachedAt + 2 * TTL_MS)); // past the TTL, well inside the stale window

  const stale = await svc.get(path);
  expect(stale.status).toBe(200);
  expect(await stale.text()).toContain(REPORT.id);
  await vi.waitFor(() => expect(refreshFailures(svc)).toHaveLength(1));
  expect(cacheOutcomes(svc)).toEqual(['miss', 'stale']);

  return svc.get(path);
}

describe('a stale entry whose refresh the upstream refuses', () => {
  it.each([
    [401, 'a search', '/api/DiagnosticReport?patient=1&access_token=revoked-token'],
    [403, 'a search', '/api/DiagnosticReport?patient=1&access_token=narrowed-token'],
    [401, 'a by-id read', `/api/DiagnosticReport/${REPORT.id}?access_token=revoked-token`],
    [403, 'a by-id read', `/api/DiagnosticReport/${REPORT.id}?access_token=narrowed-token`],
    [404, 'a by-id read of a record since deleted', `/api/DiagnosticReport/${REPORT.id}?access_token=t`],
  ])('is forgotten after an upstream %i on %s: the old body is not served again', async (status, _label, path) => {
    const after = await readAfterFailedRefresh(path, status);
    expect(after.status).toBe(status);
    // The refusal itself, not the cached Bundle or record.
    expect((await after.json()) as unknown).toMatchObject({ resourceType: 'OperationOutcome' });
    expect(upstream!.received, 'the read after the refusal went upstream').toHaveLength(3);
  });
});

describe('a stale entry whose refresh fails otherwise', () => {
  it('is kept after an upstream 500 and served stale within its window', async () => {
    const after = await readAfterFailedRefresh('/api/DiagnosticReport?patient=1&access_token=t', 500);
    expect(after.status).toBe(200);
    expect(await after.text()).toContain(REPORT.id);
    expect(cacheOutcomes(service!)).toEqual(['miss', 'stale', 'stale']);
  });
});
