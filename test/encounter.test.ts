/**
 * Encounter over real HTTP against the embedded upstream: the serialized record in the identifier
 * is built from the Encounter and what it references, fetched in one upstream round trip.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encounterShape } from '../mappers/encounter.mapper.ts';
import type { FhirResource } from '../src/upstream/fhir-client.ts';
import { expectBundle, expectOutcome, expectValid, idsOf, sortedIds, startEmbeddedTestService, type EmbeddedTestService } from './support/embedded-service.ts';

const RECORD_KEYS = [
  'patient_name',
  'identifier',
  'name',
  'code',
  'code_system',
  'code_system_name',
  'admit_date',
  'discharge_date',
  'location',
  'encounter_diagnosis',
  'performer',
  'consult_note',
  'history_and_physical_note',
  'reason_for_referral',
  'progress_note',
  'author',
  'status',
];

let service: EmbeddedTestService;
let patient: FhirResource;
let encounters: FhirResource[];

beforeAll(async () => {
  service = await startEmbeddedTestService();
  patient = (await service.fhirSearch('Patient'))[0]!;
  encounters = await service.fhirSearch('Encounter', `patient=Patient/${patient.id}`);
});
afterAll(async () => service?.close());

function recordOf(resource: Record<string, unknown>): Record<string, string | null> {
  const [identifier] = resource.identifier as { value: string }[];
  return JSON.parse(identifier!.value) as Record<string, string | null>;
}

describe('GET /Encounter', () => {
  it('returns every encounter of the patient, each with its serialized record', async () => {
    const bundle = expectBundle(await service.getJson(`/Encounter?patient=${patient.id}`), 'searchset', { Encounter: encounterShape });
    expect(encounters.length).toBeGreaterThan(5);
    expect(idsOf(bundle, 'Encounter')).toEqual(sortedIds(encounters));
    const given = (patient.name as { given: string[]; family: string }[])[0]!;
    for (const entry of bundle.entry) {
      const record = recordOf(entry.resource);
      expect(Object.keys(record)).toEqual(RECORD_KEYS);
      expect(record.patient_name).toContain(given.family);
      expect(record.status).toBe(entry.resource.status);
    }
  });

  it('fills the notes, referral reason, location, diagnosis and performer from the referenced records', async () => {
    const notes = await service.fhirSearch('DocumentReference', `patient=Patient/${patient.id}&type=http://loinc.org|34117-2`);
    const encounterRef = (notes[0]!.context as { encounter: { reference: string }[] }).encounter[0]!.reference;
    const record = recordOf(await service.getJson(`/Encounter/${encounterRef.split('/')[1]}?access_token=t`));
    const noteText = (loinc: string) => async () => {
      const [note] = await service.fhirSearch('DocumentReference', `encounter=${encounterRef}&type=http://loinc.org|${loinc}`);
      const data = (note!.content as { attachment: { data: string } }[])[0]!.attachment.data;
      return Buffer.from(data, 'base64').toString('utf8');
    };
    expect(record.history_and_physical_note).toBe(await noteText('34117-2')());
    expect(record.consult_note).toBe(await noteText('11488-4')());
    expect(record.progress_note).toBe(await noteText('11506-3')());
    expect(record.location).toBeTruthy();
    expect(record.performer).toBeTruthy();
    expect(record.admit_date).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const withDiagnosis = encounters.find((encounter) => Array.isArray(encounter.diagnosis));
    expect(withDiagnosis, 'the generated data has an encounter with a diagnosis').toBeDefined();
    expect(recordOf(await service.getJson(`/Encounter/${withDiagnosis!.id}?access_token=t`)).encounter_diagnosis).toBeTruthy();
    const referrals = await service.fhirSearch('ServiceRequest', `patient=Patient/${patient.id}&category=3457005`);
    const referred = (referrals[0]!.encounter as { reference: string }).reference.split('/')[1];
    expect(recordOf(await service.getJson(`/Encounter/${referred}?access_token=t`)).reason_for_referral).toBeTruthy();
  });

  it('takes one upstream round trip for the whole search, references included', async () => {
    await service.getJson(`/Encounter?patient=${patient.id}`);
    const line = service.logLines
      .map((entry) => JSON.parse(entry) as Record<string, unknown>)
      .findLast((entry) => entry.route === 'Encounter.search' && entry.cache === 'miss');
    expect(line?.upstreamCalls).toBe(1);
  });

  it('answers an empty Bundle for a patient without encounters', async () => {
    const bundle = expectBundle(await service.getJson('/Encounter?patient=999999'), 'searchset', { Encounter: encounterShape });
    expect(bundle).toMatchObject({ entry: [], total: 0 });
  });

  it('answers 400 for a bad patient', async () => {
    await expectOutcome(await service.get('/Encounter?patient=1;DROP'), 400);
  });
});

describe('GET /Encounter/:id', () => {
  it('returns the record, matching the schema', async () => {
    const record = await service.getJson(`/api/Encounter/${encounters[0]!.id}?access_token=t`);
    expectValid(encounterShape.schema, record);
    expect(record).toMatchObject({ resourceType: 'Encounter', id: encounters[0]!.id });
  });

  it('hides the record from another patient (404) and validates patient (400)', async () => {
    const owner = `/Encounter/${encounters[0]!.id}?access_token=t&patient=`;
    expect(await service.getJson(`${owner}${patient.id}`)).toMatchObject({ id: encounters[0]!.id });
    await expectOutcome(await service.get(`${owner}999999`), 404);
    await expectOutcome(await service.get(`${owner}abc!`), 400);
  });

  it('answers 401 without a token and 404 for an unknown id', async () => {
    await expectOutcome(await service.get(`/Encounter/${encounters[0]!.id}`), 401);
    await expectOutcome(await service.get('/Encounter/99999999?access_token=t'), 404);
  });
});
