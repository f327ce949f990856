/**
 * The token never leaves the configured upstream origin, whatever next links the upstream writes:
 * a second server plays the foreign site and must receive nothing. Covered for a base URL with a
 * path (/fhir) and for one at the server root (as some cloud FHIR services are).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const REPORT = { resourceType: 'DiagnosticReport', id: 'r1', status: 'final', subject: { reference: 'Patient/1' } };

let upstream: CannedUpstream;
let foreign: CannedUpstream;
let withPath: TestService;
let atRoot: TestService;

// The cache is off: these tests send the same request to a changing upstream on purpose.
beforeAll(async () => {
  upstream = await startCannedUpstream();
  foreign = await startCannedUpstream((_, res) => sendJson(res, 200, page([])));
  withPath = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, UPSTREAM_MAX_PAGES: '3', CACHE_ENABLED: 'false' });
  atRoot = await startTestService({ UPSTREAM_URL: upstream.origin, UPSTREAM_MAX_PAGES: '3', CACHE_ENABLED: 'false' });
});
afterAll(async () => {
  await withPath?.close();
  await atRoot?.close();
  await upstream?.close();
  await foreign?.close();
});

const foreignHost = () => new URL(foreign.origin).host;
/**
 * [label, link, expected status]. A link whose path lies under the base path is re-based onto the
 * configured origin and followed there (200, docs/decisions.md "Paging links"); every other one is
 * refused with 502 before anything is sent for it.
 */
const links: [string, () => string, 200 | 502][] = [
  ['an absolute link to another origin', () => `${foreign.origin}/fhir/DiagnosticReport?_offset=1`, 200],
  ['a protocol-relative link', () => `//${foreignHost()}/fhir/DiagnosticReport?_offset=1`, 200],
  ['a path that starts with //', () => `http://proxy.internal//${foreignHost()}/fhir/x`, 502],
  ['a path with a backslash', () => `http://proxy.internal/\\${foreignHost()}/fhir/x`, 502],
  ['an encoded ../ out of the base path', () => '/fhir/..%2f..%2fadmin?x=1', 502],
  ['a non-http scheme', () => 'file:///etc/passwd', 502],
];

/**
 * Paths with an encoded `/`, `\` or `.` (either case): a server that decodes before routing could
 * read them as `../` and serve what lies outside the base. Each lies under the base path as written
 * (and `%2e%2e;` is no dot segment for the URL parser), so only the encoded-path rule refuses it.
 */
const encodedLinks: [string, string][] = [
  ['%2f', '/fhir/DiagnosticReport/..%2f..%2fadmin?_offset=1'],
  ['%2F', '/fhir/DiagnosticReport/..%2F..%2Fadmin?_offset=1'],
  ['%5c', '/fhir/DiagnosticReport/..%5c..%5cadmin?_offset=1'],
  ['%2e', '/fhir/%2e%2e;/admin?_offset=1'],
  ['%2E%2E', '/fhir/DiagnosticReport/%2E%2E;/%2E%2E;/admin?_offset=1'],
];

interface Outcome {
  issue: { code: string; details: { text: string } }[];
}

describe.each([
  ['a base URL with a path', () => withPath],
  ['a base URL at the server root', () => atRoot],
])('with %s', (_, service) => {
  it.each(links)('never sends the token to the foreign site for %s', async (_label, link, status) => {
    foreign.received.length = 0;
    upstream.received.length = 0;
    upstream.setHandler((request, res) => {
      const first = request.url.includes('DiagnosticReport?') && !request.url.includes('_offset');
      sendJson(res, 200, page([REPORT], first ? link() : undefined));
    });
    const response = await service().get('/api/DiagnosticReport?patient=1&access_token=link-secret');
    expect(response.status).toBe(status);
    expect(foreign.received).toHaveLength(0);
    // Followed (re-based onto the configured origin) or refused before any request for it.
    expect(upstream.received.map((request) => request.url.split('?')[0]!.endsWith('/DiagnosticReport'))).toEqual(status === 200 ? [true, true] : [true]);
    for (const request of upstream.received) expect(request.headers.host).toBe(new URL(upstream.origin).host);
    expect(await response.text()).not.toContain('link-secret');
  });

  it.each(encodedLinks)('refuses a next link with %s in its path with 502 and requests nothing for it', async (_label, link) => {
    foreign.received.length = 0;
    upstream.received.length = 0;
    upstream.setHandler((request, res) => {
      const first = request.url.includes('DiagnosticReport?') && !request.url.includes('_offset');
      sendJson(res, 200, page([REPORT], first ? link : undefined));
    });
    const response = await service().get('/api/DiagnosticReport?patient=1&access_token=link-secret');
    expect(response.status).toBe(502);
    const body = (await response.json()) as Outcome;
    expect(body.issue[0]).toMatchObject({ code: 'security', details: { text: 'upstream-refused-link' } });
    expect(upstream.received).toHaveLength(1);
    expect(upstream.received[0]!.url).not.toContain('admin');
    expect(foreign.received).toHaveLength(0);
  });
});

describe('with a base URL with a path', () => {
  it('refuses a link outside the base path with 502 and follows none', async () => {
    upstream.received.length = 0;
    upstream.setHandler((_, res) => sendJson(res, 200, page([REPORT], '/admin/DiagnosticReport?_offset=1')));
    const response = await withPath.get('/api/DiagnosticReport?patient=1&access_token=t');
    expect(response.status).toBe(502);
    expect(upstream.received).toHaveLength(1);
  });
});
