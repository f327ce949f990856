/**
 * Each paging personality, hit directly: its links really have the documented form, following
 * them (as a correct client does) yields exactly the embedded server's matches, and what its server
 * refuses is refused.
 */
import { expect } from 'vitest';
import { looksLikeToken } from './paging-tokens.ts';
import { bindToProxy, embeddedIds, getFhir, nextOf, walk, type ProxyCheck } from './proxy-checks.ts';

const OBSERVATIONS = '/Observation?patient=Patient/1&_include=Observation:patient';

export const PAGING_CHECKS: Record<string, ProxyCheck> = {
  'plain-proxy': async ({ proxy, embedded }) => {
    const { pages, links, ids } = await walk(proxy, `${proxy.baseUrl}${OBSERVATIONS}&_count=200`);
    expect(pages.length).toBeGreaterThan(2);
    expect(links.every((link) => link.startsWith(`${proxy.baseUrl}/Observation?`))).toBe(true);
    expect(ids).toEqual(await embeddedIds(embedded, `${OBSERVATIONS}&_count=200`));
  },

  'firely-cap-50': async ({ proxy, embedded }) => {
    const { pages, links, ids } = await walk(proxy, `${proxy.baseUrl}${OBSERVATIONS}&_count=1000`);
    expect(pages.slice(0, -1).every((page) => page.entry!.filter((entry) => entry.search?.mode === 'match').length === 50)).toBe(true);
    expect(links[0]).toMatch(/[?&]_count=50(&|$)/);
    expect(links.every((link) => link.includes('_skip=') && !link.includes('_offset='))).toBe(true);
    expect(pages.every((page) => page.total === undefined)).toBe(true);
    expect(ids).toEqual(await embeddedIds(embedded, `${OBSERVATIONS}&_count=1000`));
    expect(proxy.stats.countsLowered).toBeGreaterThan(0);
  },

  'azure-ct': async ({ proxy, embedded }) => {
    const first = `${proxy.baseUrl}${OBSERVATIONS}&_count=20`;
    const { pages, links, ids } = await walk(proxy, first);
    expect(ids).toEqual(await embeddedIds(embedded, `${OBSERVATIONS}&_count=20`));
    expect(pages.every((page) => page.total === undefined && page.link!.every((link) => ['self', 'next'].includes(link.relation)))).toBe(true);
    // The original query is kept and the token appended.
    expect(links[0]!.startsWith(`${first}&ct=`)).toBe(true);
    const inLink = links[0]!.split('ct=')[1]!;
    const token = decodeURIComponent(inLink);
    expect(token.length).toBeGreaterThanOrEqual(2048);
    expect(looksLikeToken(token)).toBe(true);
    for (const character of ['+', '/', '=']) expect(token).toContain(character);
    const base = links[0]!.split('ct=')[0];
    // Decoded (a raw `+` reads as a space): malformed, 500 as microsoft/fhir-server#1415.
    expect((await getFhir(`${base}ct=${token}`)).status).toBe(500);
    // Re-encoded (`%2B%2F%3D`): well-formed but not the token written; refused.
    const reencoded = await getFhir(`${base}ct=${encodeURIComponent(token)}`);
    expect(reencoded.status).toBe(400);
    expect(reencoded.body.resourceType).toBe('OperationOutcome');
    expect((await getFhir(`${base}ct=${inLink.replace(/^.{4}/, 'AAAA')}`)).status).toBe(400);
    // Byte for byte, the same link still answers (tokens are not single-use on Azure).
    expect((await getFhir(links[0]!)).status).toBe(200);
  },

  'hapi-getpages': async ({ proxy, embedded }) => {
    const { links, ids } = await walk(proxy, `${proxy.baseUrl}${OBSERVATIONS}&_count=20`);
    expect(links[0]).toMatch(new RegExp(`^${proxy.baseUrl}\\?_getpages=[0-9a-f-]{36}&_getpagesoffset=20&_count=20&_bundletype=searchset$`));
    expect(ids).toEqual(await embeddedIds(embedded, `${OBSERVATIONS}&_count=20`));
    const capped = await getFhir(`${proxy.baseUrl}${OBSERVATIONS}&_count=1000`);
    expect(capped.body.entry!.filter((entry) => entry.search?.mode === 'match')).toHaveLength(200);
    const gone = await getFhir<{ resourceType: string; issue: { diagnostics: string }[] }>(
      `${proxy.baseUrl}?_getpages=0b6a0000-0000-4000-8000-000000000000&_getpagesoffset=20&_count=20`,
    );
    expect(gone.status).toBe(410);
    expect(gone.body.resourceType).toBe('OperationOutcome');
    expect(gone.body.issue[0]!.diagnostics).toMatch(/^HAPI-0417: Search ID .* does not exist and may have expired$/);
  },

  'hapi-behind-proxy': async ({ proxy, embedded }) => {
    expect(proxy.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/some\/prefix\/fhir$/);
    const { links, ids } = await walk(proxy, `${proxy.baseUrl}${OBSERVATIONS}&_count=20`);
    expect(links.every((link) => link.startsWith('http://internal-fhir:8080/fhir?_getpages='))).toBe(true);
    expect(ids).toEqual(await embeddedIds(embedded, `${OBSERVATIONS}&_count=20`));
    const statement = await getFhir<{ implementation: { url: string } }>(`${proxy.baseUrl}/metadata`);
    expect(statement.body.implementation.url).toBe('http://internal-fhir:8080/fhir');
    // The path the link names is not served here: only the re-bound link works.
    expect((await getFhir(`${proxy.origin}${new URL(links[0]!).pathname}${new URL(links[0]!).search}`)).status).toBe(404);
  },

  'internal-host-links': async ({ proxy, embedded }) => {
    const { links, ids } = await walk(proxy, `${proxy.baseUrl}${OBSERVATIONS}&_count=20`);
    expect(links.every((link) => link.startsWith('https://internal-fhir:8443/fhir/Observation?') && link.includes('_offset='))).toBe(true);
    expect(ids).toEqual(await embeddedIds(embedded, `${OBSERVATIONS}&_count=20`));
  },

  'aidbox-relative': async ({ proxy, embedded }) => {
    expect(proxy.baseUrl).toBe(proxy.origin);
    const { pages, links, ids } = await walk(proxy, `${proxy.baseUrl}${OBSERVATIONS}&_count=20`);
    expect(links[0]).toMatch(/^\/Observation\?patient=Patient%2F1&_include=Observation%3Apatient&_count=20&_page=2$/);
    expect(pages.every((page) => typeof page.total === 'number')).toBe(true);
    expect(ids).toEqual(await embeddedIds(embedded, `${OBSERVATIONS}&_count=20`));
    expect((await getFhir(`${proxy.origin}/metadata`)).body.resourceType).toBe('CapabilityStatement');
  },

  'hapi-expired-session': async ({ proxy, embedded }) => {
    const query = `${proxy.baseUrl}/DiagnosticReport?patient=Patient/2&_count=20`;
    const first = await getFhir(query);
    const gone = await getFhir(bindToProxy(proxy, nextOf(first.body)!));
    expect(gone.status).toBe(410);
    // The search run again gets a session that lives to the end.
    const { ids } = await walk(proxy, query);
    expect(ids).toEqual(await embeddedIds(embedded, '/DiagnosticReport?patient=Patient/2&_count=20'));
  },
};
