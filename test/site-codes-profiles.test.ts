/**
 * Site codes and upstream profiles over real HTTP, with a recording proxy in front of the embedded
 * server: a site's codes are what goes upstream and decide what Assessments and SDOHGoal answer; a
 * profile keeps the service from sending what the server lacks from the very first request; a
 * site's key beats the profile (docs/decisions.md, "Site codes and upstream profiles").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedTestService, type EmbeddedTestService } from './support/embedded-service.ts';
import { startTestService, type TestService } from './support/facade.ts';
import { startRecordingProxy, type RecordingProxy } from './support/recording-proxy.ts';

const US_CORE_CATEGORY = 'http://hl7.org/fhir/us/core/CodeSystem/us-core-category';

let plain: EmbeddedTestService;
let proxy: RecordingProxy;
let patient: string;
const services: TestService[] = [];

beforeAll(async () => {
  plain = await startEmbeddedTestService();
  proxy = await startRecordingProxy(new URL(plain.upstreamUrl).origin);
  patient = (await plain.fhirSearch('Patient'))[0]!.id!;
});
afterAll(async () => {
  await Promise.all(services.map((service) => service.close()));
  await proxy?.close();
  await plain?.close();
});

/** A service behind the recording proxy, configured as a site would be; the proxy's log emptied. */
async function site(env: Record<string, string>): Promise<TestService> {
  const service = await startTestService({ UPSTREAM_URL: `${proxy.origin}${new URL(plain.upstreamUrl).pathname}`, CACHE_ENABLED: 'false', ...env });
  services.push(service);
  proxy.received.length = 0;
  return service;
}

/** The searches the service sent (the CapabilityStatement apart), as decoded parameter lists. */
function searchesSent(type: string): URLSearchParams[] {
  return proxy.received
    .map((request) => new URL(request.url, proxy.origin))
    .filter((url) => url.pathname.endsWith(`/${type}`))
    .map((url) => url.searchParams);
}

/** A legacy answer with the generated Bundle id blanked: the one part allowed to differ. */
async function answerOf(service: TestService, path: string, status = 200): Promise<string> {
  const response = await service.get(path);
  const text = await response.text();
  expect(response.status, `${path}: ${text.slice(0, 200)}`).toBe(status);
  return text.replace(/^\{"resourceType":"Bundle","id":"[^"]+"/, '{"resourceType":"Bundle","id":""');
}

describe('site codes', () => {
  it("select a site's Assessments with its category: sent upstream, and what the answer holds", async () => {
    const service = await site({ ASSESSMENT_CATEGORY: 'social-history' });
    const body = JSON.parse(await answerOf(service, `/api/Assessments?patient=${patient}&access_token=t`)) as unknown[];
    expect(searchesSent('Observation').map((query) => query.getAll('category'))).toEqual([['social-history']]);
    const socialHistory = await plain.fhirSearch('Observation', `patient=Patient/${patient}&category=social-history`);
    const surveys = await plain.fhirSearch('Observation', `patient=Patient/${patient}&category=survey`);
    expect(socialHistory.length).toBeGreaterThan(0);
    expect(socialHistory.length).not.toBe(surveys.length);
    expect(body).toHaveLength(socialHistory.length);
  });

  it('go upstream as system|code lists (OR), and a system the data does not use selects nothing', async () => {
    const expected = await answerOf(plain, `/api/SDOHGoal?patient=${patient}`);
    expect(JSON.parse(expected).entry.length).toBeGreaterThan(0);
    const codes = `${US_CORE_CATEGORY}|sdoh,local-sdoh`;
    const service = await site({ SDOH_GOAL_CATEGORY: codes });
    expect(await answerOf(service, `/api/SDOHGoal?patient=${patient}`)).toBe(expected);
    expect(searchesSent('Goal').map((query) => query.getAll('category'))).toEqual([[codes]]);

    const elsewhere = await site({ SDOH_GOAL_CATEGORY: 'http://other.example/categories|sdoh' });
    expect(JSON.parse(await answerOf(elsewhere, `/api/SDOHGoal?patient=${patient}`)).entry).toEqual([]);
    // A by-id read selects with the same codes: another site's goal is not one of this site's.
    const goalId = (await plain.fhirSearch('Goal', `patient=Patient/${patient}`))[0]!.id!;
    await answerOf(service, `/api/SDOHGoal/${goalId}?access_token=t`);
    await answerOf(elsewhere, `/api/SDOHGoal/${goalId}?access_token=t`, 404);
  });

  it('are applied here, as FHIR would, when the upstream lacks the parameter', async () => {
    const expected = await answerOf(plain, `/api/SDOHGoal?patient=${patient}`);
    const service = await site({ UPSTREAM_UNSUPPORTED_PARAMS: 'Goal:category', SDOH_GOAL_CATEGORY: `local-sdoh,${US_CORE_CATEGORY}|sdoh` });
    expect(await answerOf(service, `/api/SDOHGoal?patient=${patient}`)).toBe(expected);
    expect(searchesSent('Goal').every((query) => !query.has('category'))).toBe(true);
    const elsewhere = await site({ UPSTREAM_UNSUPPORTED_PARAMS: 'Goal:category', SDOH_GOAL_CATEGORY: 'local-sdoh' });
    expect(JSON.parse(await answerOf(elsewhere, `/api/SDOHGoal?patient=${patient}`)).entry).toEqual([]);
  });
});

describe('upstream profiles', () => {
  const paths = () => [
    `/Encounter?patient=${patient}`,
    `/Observation?patient=${patient}&_revinclude=Provenance:target&access_token=profile-token`,
    `/api/SDOHGoal?patient=${patient}`,
  ];

  it('oracle-health: from the first request, no _include, no _revinclude but Provenance:target, _count within its cap; answers unchanged', async () => {
    const service = await site({ UPSTREAM_PROFILE: 'oracle-health' });
    for (const path of paths()) expect(await answerOf(service, path), path).toBe(await answerOf(plain, path));
    const searches = proxy.received.filter((request) => !request.url.includes('/metadata')).map((request) => new URL(request.url, proxy.origin).searchParams);
    expect(searches.length).toBeGreaterThan(3);
    expect(searches.flatMap((query) => query.getAll('_include'))).toEqual([]);
    expect(new Set(searches.flatMap((query) => query.getAll('_revinclude')))).toEqual(new Set(['Provenance:target']));
    expect(new Set(searches.map((query) => query.get('_count')))).toEqual(new Set(['100']));
    // The statement declares Goal `category`: the profile says only what the statement does not.
    expect(searchesSent('Goal')[0]?.get('category')).toBe('sdoh');
  });

  it("gives way to the site's keys", async () => {
    const service = await site({
      UPSTREAM_PROFILE: 'oracle-health',
      UPSTREAM_UNSUPPORTED_INCLUDES: 'none',
      UPSTREAM_UNSUPPORTED_REVINCLUDES: 'none',
      UPSTREAM_PAGE_SIZE: '1000',
    });
    expect(await answerOf(service, `/Encounter?patient=${patient}`)).toBe(await answerOf(plain, `/Encounter?patient=${patient}`));
    const [first] = searchesSent('Encounter');
    expect(first?.getAll('_include')).toContain('Encounter:patient');
    expect(first?.getAll('_revinclude')).toContain('DocumentReference:encounter');
    expect(first?.get('_count')).toBe('1000');
  });
});
