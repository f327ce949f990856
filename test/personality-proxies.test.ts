/**
 * The personality proxies themselves: each really behaves as ../shared/UPSTREAMS.md documents
 * (hit directly, no facade), so the upstream matrix cannot pass against a proxy that silently does
 * nothing. A personality added to the catalog without its check turns this suite red.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddedFhir } from '../src/embedded/fhir-server.ts';
import { PERSONALITIES } from './support/personalities/catalog.ts';
import { startGeneratedUpstream } from './support/personalities/generated-upstream.ts';
import { PAGING_CHECKS } from './support/personalities/paging-checks.ts';
import type { Personality } from './support/personalities/personality.ts';
import { startPersonalityProxy, type PersonalityProxy } from './support/personalities/personality-proxy.ts';
import { bindToProxy, getFhir, nextOf, type ProxyCheck } from './support/personalities/proxy-checks.ts';
import { SEARCH_CHECKS } from './support/personalities/search-checks.ts';

const CHECKS: Record<string, ProxyCheck> = { ...PAGING_CHECKS, ...SEARCH_CHECKS };

let embedded: EmbeddedFhir;
beforeAll(async () => {
  embedded = await startGeneratedUpstream();
});
afterAll(async () => embedded?.close());

async function withProxy(personality: Personality, run: (proxy: PersonalityProxy) => Promise<void>): Promise<void> {
  const proxy = await startPersonalityProxy(personality, embedded.baseUrl);
  try {
    await run(proxy);
  } finally {
    await proxy.close();
  }
}

it('every personality of the catalog has its own check, and names are unique', () => {
  const names = PERSONALITIES.map((personality) => personality.name);
  expect(new Set(names).size).toBe(names.length);
  expect(Object.keys(CHECKS).sort()).toEqual([...names].sort());
});

for (const personality of PERSONALITIES) {
  describe(personality.name, () => {
    it('behaves as documented', () => withProxy(personality, (proxy) => CHECKS[personality.name]!({ proxy, embedded })));
  });
}

describe('CapabilityStatement', () => {
  it('of a server with every include lists each type’s includes and the revincludes that point at it', () =>
    withProxy({ name: 'all-includes', reproduces: '', exercised: [] }, async (proxy) => {
      const { body } = await getFhir<{ rest: { resource: { type: string; searchInclude: string[]; searchRevInclude: string[] }[] }[] }>(
        `${proxy.baseUrl}/metadata`,
      );
      const encounter = body.rest[0]!.resource.find((resource) => resource.type === 'Encounter')!;
      expect(encounter.searchInclude).toEqual(
        expect.arrayContaining(['Encounter:patient', 'Encounter:location', 'Encounter:participant', 'Encounter:diagnosis']),
      );
      expect(encounter.searchRevInclude).toEqual(
        expect.arrayContaining(['DocumentReference:encounter', 'ServiceRequest:encounter', 'Condition:encounter', 'Provenance:target']),
      );
    }));
});

describe('paging tokens that expire (410 Gone)', () => {
  const firstNext = async (proxy: PersonalityProxy) =>
    bindToProxy(proxy, nextOf((await getFhir(`${proxy.baseUrl}/Observation?patient=Patient/1&_count=20`)).body)!);

  it('a single-use _getpages page answers once, then 410', () =>
    withProxy({ name: 'single-use', reproduces: '', paging: 'getpages', expiry: { singleUse: true }, exercised: [] }, async (proxy) => {
      const next = await firstNext(proxy);
      expect((await getFhir(next)).status).toBe(200);
      expect((await getFhir(next)).status).toBe(410);
      expect(proxy.stats.expiredPages).toBe(1);
    }));

  it('a _getpages session past its lifetime answers 410', () =>
    withProxy({ name: 'short-lived', reproduces: '', paging: 'getpages', expiry: { ttlMs: 30 }, exercised: [] }, async (proxy) => {
      const next = await firstNext(proxy);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect((await getFhir(next)).status).toBe(410);
    }));

  it('a ct token past its lifetime answers 410', () =>
    withProxy({ name: 'short-lived-ct', reproduces: '', paging: 'continuation-token', expiry: { ttlMs: 30 }, exercised: [] }, async (proxy) => {
      const next = await firstNext(proxy);
      expect((await getFhir(next)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect((await getFhir(next)).status).toBe(410);
    }));
});
