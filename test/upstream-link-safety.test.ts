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
const links: [string, () => string][] = [
  ['an absolute link to another origin', () => `${foreign.origin}/fhir/DiagnosticReport?_offset=1`],
  ['a protocol-relative link', () => `//${foreignHost()}/fhir/DiagnosticReport?_offset=1`],
  ['a path that starts with //', () => `http://proxy.internal//${foreignHost()}/fhir/x`],
  ['a path with a backslash', () => `http://proxy.internal/\\${foreignHost()}/fhir/x`],
  ['an encoded ../ out of the base path', () => '/fhir/..%2f..%2fadmin?x=1'],
  ['a non-http scheme', () => 'file:///etc/passwd'],
];

describe.each([
  ['a base URL with a path', () => withPath],
  ['a base URL at the server root', () => atRoot],
])('with %s', (_, service) => {
  it.each(links)('never sends the token to the foreign site for %s', async (_label, link) => {
    foreign.received.length = 0;
    upstream.received.length = 0;
    upstream.setHandler((request, res) => {
      const first = request.url.includes('DiagnosticReport?') && !request.url.includes('_offset');
      sendJson(res, 200, page([REPORT], first ? link() : undefined));
    });
    const response = await service().get('/api/DiagnosticReport?patient=1&access_token=link-secret');
    expect([200, 502]).toContain(response.status);
    expect(foreign.received).toHaveLength(0);
    for (const request of upstream.received) expect(request.headers.host).toBe(new URL(upstream.origin).host);
    expect(await response.text()).not.toContain('link-secret');
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
