/**
 * Paging: every next-link style real FHIR servers write is followed to the end, each entry comes
 * back once, and the token only ever goes to the configured origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCannedUpstream, page, sendJson, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const REPORTS = Array.from({ length: 7 }, (_, index) => ({
  resourceType: 'DiagnosticReport',
  id: `r${index + 1}`,
  status: 'final',
  code: { coding: [{ system: 'http://loinc.org', code: '24323-8' }] },
  subject: { reference: 'Patient/1' },
  effectiveDateTime: '2024-01-01',
  issued: '2024-01-02T10:00:00.000Z',
}));
const PAGE_SIZE = 3;

/** How one server style writes the link to page `index` (0-based), and reads it back from a request. */
interface LinkStyle {
  name: string;
  link(origin: string, index: number): string;
  indexOf(url: URL): number;
}

const STYLES: LinkStyle[] = [
  {
    name: "HAPI's _getpages on the server base",
    link: (origin, index) => `${origin}/fhir?_getpages=5f2c-uuid&_getpagesoffset=${index * PAGE_SIZE}&_count=${PAGE_SIZE}&_bundletype=searchset`,
    indexOf: (url) => Number(url.searchParams.get('_getpagesoffset') ?? 0) / PAGE_SIZE,
  },
  {
    name: 'a ct= continuation token',
    link: (origin, index) => `${origin}/fhir/DiagnosticReport?ct=${encodeURIComponent(btoa(`page:${index}`))}`,
    indexOf: (url) => Number(atob(url.searchParams.get('ct') ?? btoa('page:0')).split(':')[1]),
  },
  {
    name: 'a _page_token= token',
    link: (origin, index) => `${origin}/fhir/DiagnosticReport/?_page_token=tok-${index}`,
    indexOf: (url) => Number((url.searchParams.get('_page_token') ?? 'tok-0').slice(4)),
  },
  {
    name: '_offset',
    link: (origin, index) => `${origin}/fhir/DiagnosticReport?patient=Patient%2F1&_count=${PAGE_SIZE}&_offset=${index * PAGE_SIZE}`,
    indexOf: (url) => Number(url.searchParams.get('_offset') ?? 0) / PAGE_SIZE,
  },
  {
    name: 'a relative link',
    link: (_, index) => `DiagnosticReport?_offset=${index * PAGE_SIZE}`,
    indexOf: (url) => Number(url.searchParams.get('_offset') ?? 0) / PAGE_SIZE,
  },
  {
    name: "the server's internal host name behind a proxy",
    link: (_, index) => `http://fhir-internal.cluster.local:8080/fhir/DiagnosticReport?_offset=${index * PAGE_SIZE}`,
    indexOf: (url) => Number(url.searchParams.get('_offset') ?? 0) / PAGE_SIZE,
  },
];

let upstream: CannedUpstream;
let service: TestService;

// The cache is off: these tests send the same request to a changing upstream on purpose.
beforeAll(async () => {
  upstream = await startCannedUpstream();
  service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, CACHE_ENABLED: 'false' });
});
afterAll(async () => {
  await service?.close();
  await upstream?.close();
});

describe.each(STYLES)('next links written as $name', (style) => {
  it('returns every entry exactly once, sending the token only to the configured origin', async () => {
    upstream.received.length = 0;
    upstream.setHandler((request, res) => {
      const index = style.indexOf(new URL(request.url, upstream.origin));
      const slice = REPORTS.slice(index * PAGE_SIZE, (index + 1) * PAGE_SIZE);
      const hasMore = (index + 1) * PAGE_SIZE < REPORTS.length;
      sendJson(res, 200, page(slice, hasMore ? style.link(upstream.origin, index + 1) : undefined));
    });

    const response = await service.get('/api/DiagnosticReport?patient=1&access_token=paging-token');
    expect(response.status).toBe(200);
    const bundle = (await response.json()) as { total: number; entry: { full_url: string }[] };
    expect(bundle.entry.map((entry) => entry.full_url)).toEqual(REPORTS.map((report) => `/DiagnosticReport/${report.id}`));
    expect(bundle.total).toBe(REPORTS.length);
    expect(upstream.received).toHaveLength(3);
    for (const request of upstream.received) {
      expect(request.headers.authorization).toBe('Bearer paging-token');
      expect(request.headers.host).toBe(new URL(upstream.origin).host);
      expect(request.url).not.toContain('paging-token');
    }
  });
});
