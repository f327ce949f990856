/**
 * Paging promises over real HTTP: the service asks for `_count=UPSTREAM_PAGE_SIZE` and, with a page
 * size smaller than the answer, still returns every record (the embedded upstream behind a recording
 * proxy, so the pages a real server writes are seen); and a record an offset-paged server repeats on
 * two pages is shown once and counted once (a canned upstream, since that needs exact pages).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { sortedIds, startEmbeddedTestService, type EmbeddedTestService, type LegacyBundle } from './support/embedded-service.ts';
import { startTestService, type TestService } from './support/facade.ts';
import { startRecordingProxy, type RecordingProxy } from './support/recording-proxy.ts';

const PAGE_SIZE = 4;

describe('UPSTREAM_PAGE_SIZE', () => {
  let embedded: EmbeddedTestService;
  let proxy: RecordingProxy;
  let service: TestService;
  let patientId: string;

  beforeAll(async () => {
    embedded = await startEmbeddedTestService();
    proxy = await startRecordingProxy(new URL(embedded.upstreamUrl).origin);
    const basePath = new URL(embedded.upstreamUrl).pathname;
    service = await startTestService({ UPSTREAM_URL: `${proxy.origin}${basePath}`, UPSTREAM_PAGE_SIZE: String(PAGE_SIZE), CACHE_ENABLED: 'false' });
    patientId = (await embedded.fhirSearch('Patient'))[0]!.id!;
  });
  afterAll(async () => {
    await service?.close();
    await proxy?.close();
    await embedded?.close();
  });

  it('is the _count of the upstream search, and a page size smaller than the answer still yields every record', async () => {
    const expected = sortedIds(await embedded.fhirSearch('DiagnosticReport', `patient=Patient/${patientId}`));
    expect(expected.length, 'more records than one page holds').toBeGreaterThan(2 * PAGE_SIZE);
    proxy.received.length = 0;

    const response = await service.get(`/api/DiagnosticReport?patient=${patientId}&access_token=t`);
    expect(response.status).toBe(200);
    const bundle = (await response.json()) as LegacyBundle;

    // The CapabilityStatement the service reads once apart, every request is a page of the search.
    const pages = proxy.received.filter((request) => !request.url.endsWith('/metadata'));
    const first = new URL(pages[0]!.url, proxy.origin);
    expect(first.pathname).toMatch(/\/DiagnosticReport$/);
    expect(first.searchParams.getAll('_count')).toEqual([String(PAGE_SIZE)]);
    expect(pages.length, 'the answer took more than one upstream page').toBeGreaterThan(1);
    expect(bundle.entry.map((entry) => entry.full_url.split('/')[2]).sort()).toEqual(expected);
    expect(bundle.total).toBe(expected.length);
  });
});

describe('a record repeated across upstream pages', () => {
  let upstream: CannedUpstream;
  let service: TestService;
  const report = (id: string) => ({ resourceType: 'DiagnosticReport', id, status: 'final', subject: { reference: 'Patient/1' } });

  beforeAll(async () => {
    // Offset paging over data that shifted: r2 ends page 1 and starts page 2.
    upstream = await startCannedUpstream((request, res) => {
      const second = new URL(request.url, upstream.origin).searchParams.get('_offset') === '2';
      sendJson(res, 200, second ? page([report('r2'), report('r3')]) : page([report('r1'), report('r2')], '/fhir/DiagnosticReport?_offset=2'));
    });
    service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, CACHE_ENABLED: 'false' });
  });
  afterAll(async () => {
    await service?.close();
    await upstream?.close();
  });

  it('is shown once and counted once', async () => {
    const response = await service.get('/api/DiagnosticReport?patient=1');
    expect(response.status).toBe(200);
    const bundle = (await response.json()) as LegacyBundle;
    expect(upstream.received).toHaveLength(2);
    expect(bundle.entry.map((entry) => entry.full_url)).toEqual(['/DiagnosticReport/r1', '/DiagnosticReport/r2', '/DiagnosticReport/r3']);
    expect(bundle.total).toBe(3);
  });
});
