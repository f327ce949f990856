/**
 * The quirks of the ten kinds beyond the first five (spec section 2), over real HTTP against the
 * embedded upstream. The route-table contract (contract.test.ts) covers what every route shares.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FhirResource } from '../src/upstream/fhir-client.ts';
import { idsOf, sortedIds, startEmbeddedTestService, type EmbeddedTestService, type LegacyBundle } from './support/embedded-service.ts';

let service: EmbeddedTestService;
let patient: FhirResource;

beforeAll(async () => {
  service = await startEmbeddedTestService();
  patient = (await service.fhirSearch('Patient'))[0]!;
});
afterAll(async () => service?.close());

const bundle = (path: string) => service.getJson<LegacyBundle>(`${path}${path.includes('?') ? '&' : '?'}patient=${patient.id}&access_token=t`);
const resources = (found: LegacyBundle) => found.entry.map((entry) => entry.resource);
/**
 * The records of an answer, asserted non-empty: the generated patient has records of every kind, so
 * an empty answer is a failure, never a loop that checks nothing.
 */
const someResources = (found: LegacyBundle, label: string) => {
  const all = resources(found);
  expect(all.length, `${label}: the patient has records of this kind`).toBeGreaterThan(0);
  return all;
};
const form = (body: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

describe('CarePlan', () => {
  it('is a "search set" Bundle under both descriptions, with the narrative as text.div', async () => {
    const first = await bundle('/api/CarePlan');
    const second = await bundle('/CarePlan');
    expect([first.type, second.type]).toEqual(['search set', 'search set']);
    expect(idsOf(second, 'CarePlan')).toEqual(idsOf(first, 'CarePlan'));
    for (const plan of someResources(first, 'CarePlan')) expect((plan.text as { div: string }).div).toMatch(/^<div xmlns="http:\/\/www.w3.org\/1999\/xhtml">/);
  });

  it('filters by category as the FHIR server does', async () => {
    const found = await bundle('/api/CarePlan?category=assess-plan');
    const expected = sortedIds(await service.fhirSearch('CarePlan', `patient=Patient/${patient.id}&category=assess-plan`));
    expect(expected.length, 'the patient has assess-plan care plans').toBeGreaterThan(0);
    expect(idsOf(found, 'CarePlan')).toEqual(expected);
  });
});

describe('CareTeam', () => {
  it('names members that are Practitioners and members that are Organizations', async () => {
    const members = resources(await bundle('/api/CareTeam')).flatMap((team) =>
      (team.participant as { member: { reference: string; display?: string } }[]).map((p) => p.member),
    );
    for (const type of ['Practitioner', 'Organization']) {
      const ofType = members.filter((member) => member.reference.startsWith(`${type}/`));
      expect(ofType.length, type).toBeGreaterThan(0);
      for (const member of ofType) expect(member.display).toBeTruthy();
    }
  });

  it('filters by status', async () => {
    const proposed = resources(await bundle('/api/CareTeam?status=proposed'));
    expect(proposed.length).toBeGreaterThan(0);
    for (const team of proposed) expect(team.status).toBe('proposed');
  });
});

describe('AllergyIntolerance', () => {
  it('writes patient display first, and answers the misspelled POST path as the GET search', async () => {
    const found = await bundle('/api/AllergyIntolerance');
    for (const allergy of someResources(found, 'AllergyIntolerance')) expect(Object.keys(allergy.patient as object)).toEqual(['display', 'reference']);
    for (const path of ['/api/AlleryIntolerance/_search', '/api/AllergyIntolerance/_search']) {
      const response = await service.get(path, form(`patient=${patient.id}&access_token=t`));
      expect(idsOf((await response.json()) as LegacyBundle, 'AllergyIntolerance'), path).toEqual(idsOf(found, 'AllergyIntolerance'));
    }
  });
});

describe('Immunization', () => {
  it('gives a not-done immunization its status reason and a completed one none', async () => {
    const all = resources(await bundle('/api/Immunization'));
    const notDone = all.filter((item) => item.status === 'not-done');
    expect(notDone.length).toBeGreaterThan(0);
    for (const item of notDone) expect((item.statusReason as { text: string }).text).toBeTruthy();
    const completed = all.filter((i) => i.status === 'completed');
    expect(completed.length).toBeGreaterThan(0);
    for (const item of completed) expect(item.statusReason).toBeNull();
  });
});

describe('Condition', () => {
  it('carries abatementDateTime only on a resolved condition', async () => {
    const all = resources(await bundle('/Condition'));
    const resolved = all.filter((condition) => 'abatementDateTime' in condition);
    expect(resolved.length).toBeGreaterThan(0);
    expect(resolved.length).toBeLessThan(all.length);
    for (const condition of resolved) {
      expect(JSON.stringify(condition.clinicalStatus)).toMatch(/resolved|inactive|remission/);
    }
  });
});

describe('Coverage', () => {
  it('writes Class with a capital C and compares dates with its period', async () => {
    const [coverage] = someResources(await bundle('/api/Coverage'), 'Coverage');
    expect(coverage).toHaveProperty('Class');
    expect(coverage).not.toHaveProperty('class');
    const period = coverage!.period as { start: string; end?: string };
    const before = await bundle(`/api/Coverage?end_date=${dayBefore(period.start)}`);
    const during = await bundle(`/api/Coverage?start_date=${period.start}&end_date=${period.start}`);
    expect([before.total, during.total]).toEqual([0, 1]);
  });
});

describe('Procedure, SDOHGoal, Specimen and Practitioner', () => {
  it('writes Procedure performedPeriod as dates in a "search set" Bundle', async () => {
    const found = await bundle('/Procedure');
    expect(found.type).toBe('search set');
    for (const procedure of someResources(found, 'Procedure')) {
      const { start, end } = procedure.performedPeriod as { start: string; end: string };
      expect(`${start} ${end}`).toMatch(/^\d{4}-\d{2}-\d{2} \d{4}-\d{2}-\d{2}$/);
    }
  });

  it('returns only social-determinants goals from SDOHGoal', async () => {
    const sdoh = await service.fhirSearch('Goal', `patient=Patient/${patient.id}&category=sdoh`);
    expect(sdoh.length, 'the patient has social-determinants goals').toBeGreaterThan(0);
    expect(idsOf(await bundle('/api/SDOHGoal'), 'Goal')).toEqual(sortedIds(sdoh));
  });

  it('returns the specimens with their containers', async () => {
    for (const specimen of someResources(await bundle('/api/Specimen'), 'Specimen')) expect(Array.isArray(specimen.container)).toBe(true);
  });

  it("returns exactly the practitioners of the patient's encounters, with telecom and address", async () => {
    const found = someResources(await bundle('/Practitioner'), 'Practitioner');
    const encounters = await service.fhirSearch('Encounter', `patient=Patient/${patient.id}`);
    const participants = new Set(
      encounters.flatMap((encounter) => (encounter.participant as { individual?: { reference: string } }[]).map((p) => p.individual?.reference)),
    );
    expect(found.map((practitioner) => `Practitioner/${practitioner.id}`).sort()).toEqual(
      [...participants].filter((ref) => ref?.startsWith('Practitioner/')).sort(),
    );
    for (const practitioner of found) {
      expect((practitioner.telecom as unknown[]).length).toBeGreaterThan(0);
      expect((practitioner.address as unknown[]).length).toBeGreaterThan(0);
    }
  });
});

describe('POST _search', () => {
  it.each(['/api/CarePlan', '/api/CareTeam', '/api/Immunization', '/api/Coverage', '/api/DiagnosticReport'])(
    '%s/_search answers as the GET search, from body and query',
    async (path) => {
      const viaGet = await bundle(`${path}?start_date=2021-01-01`);
      expect(viaGet.entry.length, 'the patient has records of this kind since 2021').toBeGreaterThan(0);
      const response = await service.get(`${path}/_search?start_date=2021-01-01`, form(`patient=${patient.id}&access_token=t`));
      expect(response.status).toBe(200);
      const viaPost = (await response.json()) as LegacyBundle;
      expect(viaPost.type).toBe(viaGet.type);
      expect(viaPost.entry.map((e) => e.full_url)).toEqual(viaGet.entry.map((e) => e.full_url));
    },
  );
});

describe('POST _search parameters', () => {
  const post = (path: string, body: string, query = '') => service.get(`${path}/_search${query}`, form(body));

  it('refuses a single-valued parameter given in both the body and the query', async () => {
    expect((await post('/api/CareTeam', `patient=${patient.id}`, `?patient=${patient.id}`)).status).toBe(400);
  });

  it('ANDs a date given in the body with one in the query', async () => {
    const both = (await (await post('/api/DiagnosticReport', `patient=${patient.id}&date=ge2022-01-01`, '?date=lt2023-01-01')).json()) as LegacyBundle;
    const viaGet = await bundle('/api/DiagnosticReport?date=ge2022-01-01&date=lt2023-01-01');
    expect(both.total).toBeGreaterThan(0);
    expect(both.entry.map((e) => e.full_url)).toEqual(viaGet.entry.map((e) => e.full_url));
  });

  it('takes the token from the body on a route that needs one, and refuses two of them', async () => {
    expect((await post('/api/Immunization', `patient=${patient.id}`)).status).toBe(403);
    expect((await post('/api/Immunization', `patient=${patient.id}&access_token=t`)).status).toBe(200);
    expect((await post('/api/Immunization', `patient=${patient.id}&access_token=t`, '?access_token=t')).status).toBe(400);
  });
});

function dayBefore(date: string): string {
  const day = new Date(`${date.slice(0, 10)}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() - 1);
  return day.toISOString().slice(0, 10);
}
