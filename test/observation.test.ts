/**
 * Observation (with Provenance) over real HTTP against the embedded upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observationShape } from '../mappers/observation.mapper.ts';
import { provenanceShape } from '../mappers/provenance.mapper.ts';
import type { FhirResource } from '../src/upstream/fhir-client.ts';
import {
  expectBundle,
  expectOutcome,
  idsOf,
  sortedIds,
  startEmbeddedTestService,
  type EmbeddedTestService,
  type LegacyBundle,
} from './support/embedded-service.ts';

let service: EmbeddedTestService;
let patient: FhirResource;
let observations: FhirResource[];

beforeAll(async () => {
  service = await startEmbeddedTestService();
  patient = (await service.fhirSearch('Patient'))[0]!;
  observations = await service.fhirSearch('Observation', `patient=Patient/${patient.id}`);
});
afterAll(async () => service?.close());

const shapes = { Observation: observationShape, Provenance: provenanceShape };

async function search(query: string): Promise<LegacyBundle> {
  return expectBundle(await service.getJson(`/Observation?access_token=t&${query}`), 'search set', shapes);
}

describe('GET /Observation', () => {
  it('returns every observation of the patient in a "search set" Bundle, subject with the patient name', async () => {
    const bundle = await search(`patient=${patient.id}`);
    expect(observations.length).toBeGreaterThan(10);
    expect(idsOf(bundle, 'Observation')).toEqual(sortedIds(observations));
    const given = (patient.name as { given: string[]; family: string }[])[0]!;
    for (const entry of bundle.entry) {
      expect(entry.resource).not.toHaveProperty('meta');
      expect(entry.resource.subject).toEqual({ reference: `Patient/${patient.id}`, display: `${given.given.join(' ')} ${given.family}` });
    }
  });

  it('writes valueCodeableConcept as system and code only', async () => {
    const bundle = await search(`patient=${patient.id}&category=social-history`);
    const coded = bundle.entry.map((entry) => entry.resource).filter((resource) => resource.valueCodeableConcept);
    expect(coded.length).toBeGreaterThan(0);
    for (const resource of coded) {
      for (const coding of (resource.valueCodeableConcept as { coding: object[] }).coding) {
        expect(Object.keys(coding).sort()).toEqual(['code', 'system']);
      }
    }
  });

  it('adds Provenance entries for _revinclude=Provenance:target and counts them in total', async () => {
    const bundle = await search(`patient=${patient.id}&_revinclude=Provenance:target`);
    const provenanceIds = idsOf(bundle, 'Provenance');
    expect(provenanceIds.length).toBeGreaterThan(0);
    expect(bundle.total).toBe(observations.length + provenanceIds.length);
    const expected = await service.fhirSearch('Provenance', `target=${observations.map((o) => `Observation/${o.id}`).join(',')}`);
    expect(provenanceIds).toEqual(sortedIds(expected));
  });

  const filters = [
    ['a category', 'category=laboratory', 'category=laboratory'],
    ['a code', 'code=72166-2', 'code=72166-2'],
    ['a system|code', `code=${encodeURIComponent('http://loinc.org|72166-2')}`, `code=${encodeURIComponent('http://loinc.org|72166-2')}`],
    ['start_date and end_date', 'start_date=2022-01-01&end_date=2022-12-31', 'date=ge2022-01-01&date=le2022-12-31'],
    ['date with gt', 'date=gt2024-01-01', 'date=gt2024-01-01'],
  ] as const;
  it.each(filters)('filters by %s exactly as the FHIR server does', async (_, query, fhirQuery) => {
    const bundle = await search(`patient=${patient.id}&${query}`);
    const expected = await service.fhirSearch('Observation', `patient=Patient/${patient.id}&${fhirQuery}`);
    expect(expected.length).toBeGreaterThan(0);
    expect(idsOf(bundle, 'Observation')).toEqual(sortedIds(expected));
  });

  it('answers an empty Bundle when nothing matches', async () => {
    const bundle = await search(`patient=${patient.id}&code=no-such-code`);
    expect(bundle).toMatchObject({ entry: [], total: 0 });
  });

  it('requires a token (401), also through the /api twin', async () => {
    await expectOutcome(await service.get(`/Observation?patient=${patient.id}`), 401);
    await expectOutcome(await service.get(`/api/Observation?patient=${patient.id}`), 401);
  });

  it.each([
    ['an unsupported _revinclude', '_revinclude=Provenance:entity'],
    ['a malformed date', 'date=2022-1-1'],
    ['a bad patient', 'patient=a%20b'],
  ])('answers 400 for %s', async (_, query) => {
    await expectOutcome(await service.get(`/Observation?access_token=t&${query}`), 400);
  });
});
