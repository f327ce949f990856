/**
 * Paging and search results as real servers write them (../shared/UPSTREAMS.md): outcome entries
 * that only inform, a paging session that expires (410), links that name the server's own address
 * behind a reverse proxy, and continuation tokens that must travel byte for byte.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const report = (id: string) => ({ resourceType: 'DiagnosticReport', id, status: 'final', subject: { reference: 'Patient/1' } });
const outcome = (severity: string, code: string) => ({
  resource: { resourceType: 'OperationOutcome', issue: [{ severity, code }] },
  search: { mode: 'outcome' },
});
const REPORTS = '/api/DiagnosticReport?patient=1';

let upstream: CannedUpstream;
let service: TestService;

// The service reaches the server through a gateway under /hapi/fhir; the server calls itself http://internal-fhir:8080/fhir.
beforeAll(async () => {
  upstream = await startCannedUpstream();
  service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/hapi/fhir`, CACHE_ENABLED: 'false' });
});
afterAll(async () => {
  await service?.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.received.length = 0;
});

async function totalOf(path: string): Promise<number> {
  const response = await service.get(path);
  expect(response.status).toBe(200);
  return ((await response.json()) as { total: number }).total;
}

describe('outcome entries in a searchset', () => {
  it('pass over a warning that there are no results (Epic 4101) and informational issues (Azure)', async () => {
    upstream.setHandler((_, res) => sendJson(res, 200, { resourceType: 'Bundle', type: 'searchset', total: 0, entry: [outcome('warning', 'processing')] }));
    expect(await totalOf(REPORTS)).toBe(0);
    upstream.setHandler((_, res) =>
      sendJson(res, 200, {
        resourceType: 'Bundle',
        type: 'searchset',
        entry: [outcome('information', 'informational'), { resource: report('r1'), search: { mode: 'match' } }],
      }),
    );
    expect(await totalOf(REPORTS)).toBe(1);
  });

  it('are a 502 when they say a parameter was not applied, or report an error', async () => {
    for (const [severity, code] of [
      ['warning', 'not-supported'],
      ['warning', 'invalid'],
      ['error', 'processing'],
    ]) {
      upstream.setHandler((_, res) =>
        sendJson(res, 200, {
          resourceType: 'Bundle',
          type: 'searchset',
          entry: [outcome(severity!, code!), { resource: report('r1'), search: { mode: 'match' } }],
        }),
      );
      expect((await service.get(REPORTS)).status, `${severity} ${code}`).toBe(502);
    }
  });
});

describe('a paging session that expires', () => {
  /** Page 2 answers 410 the first `expiries` times it is asked for. */
  function expiringSecondPage(expiries: number): void {
    let expired = 0;
    upstream.setHandler((request, res) => {
      if (!request.url.includes('page=2')) return sendJson(res, 200, page([report('r1')], `${upstream.origin}/hapi/fhir/DiagnosticReport?page=2`));
      if (expired < expiries) {
        expired += 1;
        return sendJson(res, 410, {
          resourceType: 'OperationOutcome',
          issue: [{ severity: 'error', code: 'not-found', diagnostics: 'Search ID does not exist and may have expired' }],
        });
      }
      return sendJson(res, 200, page([report('r2')]));
    });
  }

  it('restarts the search once from its first page and answers every record', async () => {
    expiringSecondPage(1);
    expect(await totalOf(REPORTS)).toBe(2);
    expect(upstream.received.map((request) => request.url.includes('page=2'))).toEqual([false, true, false, true]);
  });

  it('is a 502 when it expires again, never a shortened answer', async () => {
    expiringSecondPage(2);
    const response = await service.get(REPORTS);
    expect(response.status).toBe(502);
  });
});

describe('links naming the server behind a reverse proxy', () => {
  it("follow HAPI's _getpages link on the server's own base, moved onto the configured base", async () => {
    upstream.setHandler((request, res) => {
      const self = { relation: 'self', url: 'http://internal-fhir:8080/fhir/DiagnosticReport?patient=Patient%2F1' };
      if (request.url.startsWith('/hapi/fhir?_getpages=')) return sendJson(res, 200, { ...page([report('r2')]), link: [self] });
      const next = { relation: 'next', url: 'http://internal-fhir:8080/fhir?_getpages=4c1e&_getpagesoffset=1&_count=1000&_bundletype=searchset' };
      sendJson(res, 200, { ...page([report('r1')]), link: [self, next] });
    });
    expect(await totalOf(REPORTS)).toBe(2);
    expect(upstream.received[1]?.url).toBe('/hapi/fhir?_getpages=4c1e&_getpagesoffset=1&_count=1000&_bundletype=searchset');
  });

  it("still refuses a link outside both the configured base and the server's own", async () => {
    upstream.setHandler((_, res) => {
      const self = { relation: 'self', url: 'http://internal-fhir:8080/fhir/DiagnosticReport' };
      sendJson(res, 200, { ...page([report('r1')]), link: [self, { relation: 'next', url: 'http://internal-fhir:8080/admin/export?x=1' }] });
    });
    expect((await service.get(REPORTS)).status).toBe(502);
    expect(upstream.received).toHaveLength(1);
  });

  it('keeps an opaque continuation token byte for byte (Azure ct with + / = and percent escapes, never decoded or encoded again)', async () => {
    const token = `${'aB+/9='.repeat(400)}%2B%3D`;
    upstream.setHandler((request, res) => {
      if (request.url.includes('ct=')) return sendJson(res, 200, page([report('r2')]));
      sendJson(res, 200, page([report('r1')], `${upstream.origin}/hapi/fhir/DiagnosticReport?patient=Patient%2F1&ct=${token}`));
    });
    expect(await totalOf(REPORTS)).toBe(2);
    expect(upstream.received[1]?.url.endsWith(`ct=${token}`)).toBe(true);
  });
});
