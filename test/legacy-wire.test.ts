/**
 * The old system's wire format (../shared/LEGACY-WIRE.md), fact by fact, on every route: the service
 * on its embedded FHIR server, the site's zone `America/New_York` as in the old system's examples.
 * What each answer should hold is worked out from the FHIR records themselves, never written in.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../src/routes.ts';
import type { FhirResource } from '../src/upstream/fhir-client.ts';
import { startEmbeddedTestService, type EmbeddedTestService, type LegacyBundle } from './support/embedded-service.ts';

const ZONE = 'America/New_York';
const LEGACY_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/;

let service: EmbeddedTestService;
let patient: FhirResource;

beforeAll(async () => {
  service = await startEmbeddedTestService({ env: { LEGACY_TIME_ZONE: ZONE } });
  // The patient with the most Observations: every kind of record is there.
  const patients = await service.fhirSearch('Patient');
  const counts = await Promise.all(patients.map(async (each) => (await service.fhirSearch('Observation', `patient=Patient/${each.id}`)).length));
  patient = patients[counts.indexOf(Math.max(...counts))]!;
});
afterAll(() => service.close());

/** The offset New York had at an instant, `-05:00` or `-04:00`, from the runtime's zone data. */
function easternOffset(instant: number): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: ZONE, timeZoneName: 'longOffset' })
    .formatToParts(instant)
    .find((part) => part.type === 'timeZoneName')!.value;
  return name.replace('GMT', '');
}

/** A legacy timestamp that stands for `source` (a FHIR dateTime): same instant, New York's offset then. */
function expectLegacyInstant(written: unknown, source: unknown, where: string): void {
  expect(written, where).toMatch(LEGACY_TIMESTAMP);
  const instant = Date.parse(
    String(source).length === 10 ? `${String(source)}T00:00:00${easternOffset(Date.parse(String(source)) + 12 * 3_600_000)}` : String(source),
  );
  expect(Date.parse(String(written)), where).toBe(instant);
  expect(String(written).slice(-6), where).toBe(easternOffset(instant));
}

async function legacySearch(path: string): Promise<LegacyBundle> {
  return service.getJson<LegacyBundle>(`${path}?patient=${patient.id}&access_token=t`);
}

function idOf(fullUrl: string): string {
  return fullUrl.split('/')[2] ?? '';
}

describe('envelope', () => {
  const bundleRoutes = ROUTES.filter((route) => route.kind === 'search' && route.method === 'GET' && route.envelope === 'bundle');

  it.each(bundleRoutes.map((route) => [route.path, route.path] as const))(
    '%s: id of 32 lowercase hex characters, new each time; keys resourceType, id, type, entry, total',
    async (_, path) => {
      const [first, second] = [await legacySearch(path), await legacySearch(path)];
      for (const bundle of [first, second]) {
        expect(bundle.id).toMatch(/^[0-9a-f]{32}$/);
        expect(Object.keys(bundle)).toEqual(['resourceType', 'id', 'type', 'entry', 'total']);
        for (const entry of bundle.entry) expect(Object.keys(entry)).toEqual(['full_url', 'resource']);
        expect(bundle.total).toBe(bundle.entry.length);
      }
      expect(first.id).not.toBe(second.id);
    },
  );
});

describe("timestamps in the old system's zone, three fraction digits, a numeric offset", () => {
  it('Observation issued and effectiveDateTime (with Provenance recorded), same instants as the FHIR records', async () => {
    const bundle = await service.getJson<LegacyBundle>(`/Observation?patient=${patient.id}&_revinclude=Provenance:target&access_token=t`);
    const sources = new Map((await service.fhirSearch('Observation', `patient=Patient/${patient.id}`)).map((o) => [o.id, o]));
    const provenances = new Map((await service.fhirSearch('Provenance')).map((p) => [p.id, p]));
    let checked = 0;
    for (const { full_url: fullUrl, resource } of bundle.entry) {
      if (resource.resourceType === 'Provenance') {
        expectLegacyInstant(resource.recorded, provenances.get(idOf(fullUrl))!.recorded, fullUrl);
        continue;
      }
      const source = sources.get(idOf(fullUrl))!;
      if (source.issued !== undefined) expectLegacyInstant(resource.issued, source.issued, `${fullUrl} issued`);
      const effective = source.effectiveDateTime ?? (source.effectivePeriod as { start?: string } | undefined)?.start;
      if (effective !== undefined) expectLegacyInstant(resource.effectiveDateTime, effective, `${fullUrl} effectiveDateTime`);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('both offsets of the year: -05:00 in winter, -04:00 in summer', async () => {
    const bundle = await legacySearch('/Observation');
    const offsets = new Set(bundle.entry.map(({ resource }) => String(resource.effectiveDateTime).slice(-6)));
    expect([...offsets].sort()).toEqual(['-04:00', '-05:00']);
  });

  it('Condition recordedDate, onsetDateTime, abatementDateTime; Encounter periods; Immunization occurrenceDateTime', async () => {
    const conditions = new Map((await service.fhirSearch('Condition', `patient=Patient/${patient.id}`)).map((c) => [c.id, c]));
    for (const { full_url: fullUrl, resource } of (await legacySearch('/Condition')).entry) {
      const source = conditions.get(idOf(fullUrl))!;
      for (const key of ['recordedDate', 'onsetDateTime', 'abatementDateTime'] as const) {
        if (source[key] !== undefined) expectLegacyInstant(resource[key], source[key], `${fullUrl} ${key}`);
      }
    }
    const encounters = new Map((await service.fhirSearch('Encounter', `patient=Patient/${patient.id}`)).map((e) => [e.id, e]));
    const encounterBundle = await legacySearch('/Encounter');
    expect(encounterBundle.total).toBeGreaterThan(0);
    for (const { full_url: fullUrl, resource } of encounterBundle.entry) {
      const period = encounters.get(idOf(fullUrl))!.period as { start: string; end?: string };
      const written = resource.period as { start: string; end: string | null };
      expectLegacyInstant(written.start, period.start, `${fullUrl} period.start`);
      if (period.end !== undefined) expectLegacyInstant(written.end, period.end, `${fullUrl} period.end`);
      const record = JSON.parse((resource.identifier as { value: string }[])[0]!.value) as Record<string, string>;
      expect(record.admit_date).toBe(written.start);
    }
    const immunizations = await service.fhirSearch('Immunization', `patient=Patient/${patient.id}`);
    const written = (await legacySearch('/api/Immunization')).entry.map(({ resource }) => Date.parse(String(resource.occurrenceDateTime)));
    expect(written.sort()).toEqual(immunizations.map((i) => Date.parse(String(i.occurrenceDateTime))).sort());
  });

  it('meta.lastUpdated keeps UTC with real milliseconds: +00:00', async () => {
    const bundle = await legacySearch('/Condition');
    expect(bundle.total).toBeGreaterThan(0);
    for (const { resource } of bundle.entry)
      expect((resource.meta as { lastUpdated: string }).lastUpdated).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
  });

  it('dates stay YYYY-MM-DD: DiagnosticReport dates are the local calendar date of the FHIR instant', async () => {
    const reports = new Map((await service.fhirSearch('DiagnosticReport', `patient=Patient/${patient.id}`)).map((r) => [r.id, r]));
    const localDate = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });
    for (const { full_url: fullUrl, resource } of (await legacySearch('/api/DiagnosticReport')).entry) {
      const source = reports.get(idOf(fullUrl))!;
      if (source.issued !== undefined) expect(resource.issued, fullUrl).toBe(localDate.format(Date.parse(String(source.issued))));
    }
  });
});

describe('names in references', () => {
  it("subject.display is the patient's first given name, a space, the family name, on every subject", async () => {
    const name = (patient.name as { given: string[]; family: string }[])[0]!;
    const expected = `${name.given[0]} ${name.family}`;
    for (const path of ['/Observation', '/Condition', '/api/CarePlan', '/api/CareTeam', '/Procedure']) {
      const bundle = await legacySearch(path);
      const subjects = bundle.entry.filter(({ resource }) => resource.subject).map(({ resource }) => resource.subject);
      expect(subjects.length, path).toBeGreaterThan(0);
      for (const subject of subjects) expect(subject, path).toEqual({ reference: `Patient/${patient.id}`, display: expected });
    }
  });

  it('AllergyIntolerance: patient {display, reference} with "Given, Family"; full_url /AllergyIntolerance/', async () => {
    const withAllergies = await service.fhirSearch('AllergyIntolerance');
    const owner = String((withAllergies[0]!.patient as { reference: string }).reference)
      .split('/')
      .pop()!;
    const [owned] = await service.fhirSearch('Patient', `_id=${owner}`);
    const name = (owned!.name as { given: string[]; family: string }[])[0]!;
    const bundle = await service.getJson<LegacyBundle>(`/api/AllergyIntolerance?patient=${owner}&access_token=t`);
    expect(bundle.total).toBeGreaterThan(0);
    for (const entry of bundle.entry) {
      expect(entry.full_url).toBe('/AllergyIntolerance/');
      expect(Object.keys(entry.resource)).toEqual(['resourceType', 'code', 'reaction', 'clinicalStatus', 'verificationStatus', 'patient']);
      expect(Object.keys(entry.resource.patient as object)).toEqual(['display', 'reference']);
      expect(entry.resource.patient).toEqual({ display: `${name.given[0]}, ${name.family}`, reference: `Patient/${owner}` });
    }
  });
});

describe('requests as the examples write them', () => {
  it('a 64-character token, no /api, and the colon of _revinclude percent-encoded (Provenance%3Atarget)', async () => {
    const token = 'A1b2C3d4'.repeat(8);
    const encoded = await service.getJson<LegacyBundle>(`/Observation?patient=${patient.id}&_revinclude=Provenance%3Atarget&access_token=${token}`);
    const plain = await service.getJson<LegacyBundle>(`/Observation?patient=${patient.id}&_revinclude=Provenance:target&access_token=${token}`);
    expect(encoded.entry.some(({ resource }) => resource.resourceType === 'Provenance')).toBe(true);
    expect(encoded.entry.map((entry) => entry.full_url)).toEqual(plain.entry.map((entry) => entry.full_url));
  });
});

describe('resources', () => {
  it('Observation keys in the old order, no meta; Provenance keys, agent keys, onBehalfOf {display, reference}, codings system and code', async () => {
    const bundle = await service.getJson<LegacyBundle>(`/Observation?patient=${patient.id}&_revinclude=Provenance:target&access_token=t`);
    const order = ['resourceType', 'id', 'status', 'issued', 'category', 'code', 'subject', 'effectiveDateTime', 'valueCodeableConcept'];
    const observations = bundle.entry.filter(({ resource }) => resource.resourceType === 'Observation');
    for (const { resource } of observations) expect(Object.keys(resource).slice(0, order.length)).toEqual(order);
    const provenances = bundle.entry.filter(({ resource }) => resource.resourceType === 'Provenance');
    expect(provenances.length).toBeGreaterThan(0);
    for (const { resource } of provenances) {
      expect(Object.keys(resource)).toEqual(['resourceType', 'id', 'target', 'recorded', 'agent']);
      for (const agent of resource.agent as Record<string, unknown>[]) {
        expect(Object.keys(agent)).toEqual(['id', 'onBehalfOf', 'type', 'who']);
        if (agent.onBehalfOf) expect(Object.keys(agent.onBehalfOf)).toEqual(['display', 'reference']);
        for (const coding of (agent.type as { coding: object[] } | null)?.coding ?? []) expect(Object.keys(coding)).toEqual(['system', 'code']);
      }
    }
  });
});

describe('values the examples show on records the sample data lacks', () => {
  let own: EmbeddedTestService;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'legacy-wire-'));
    const entry = (resource: FhirResource) => ({ resource, request: { method: 'PUT', url: `${resource.resourceType}/${resource.id}` } });
    const subject = { reference: 'Patient/nameless-1' };
    const bundle = {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: [
        entry({ resourceType: 'Patient', id: 'nameless-1', gender: 'unknown' }),
        entry({
          resourceType: 'Observation',
          id: 'date-only',
          status: 'final',
          code: { text: 'x' },
          subject,
          effectiveDateTime: '2015-06-22',
          issued: '2015-01-22T10:00:00Z',
        }),
        entry({ resourceType: 'Condition', id: 'partial', subject, onsetDateTime: '2019-05', recordedDate: '2019-03-10T02:30:00' }),
        entry({ resourceType: 'AllergyIntolerance', id: 'a-1', patient: subject, code: { text: 'Peanut' } }),
      ],
    };
    await writeFile(join(dataDir, 'wire.json'), JSON.stringify(bundle));
    own = await startEmbeddedTestService({ dataDir, env: { LEGACY_TIME_ZONE: ZONE } });
  });
  afterAll(async () => {
    await own?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a patient without a name: subject.display " ", AllergyIntolerance display ", "', async () => {
    const observations = await own.getJson<LegacyBundle>('/Observation?patient=nameless-1&access_token=t');
    expect(observations.entry[0]!.resource.subject).toEqual({ reference: 'Patient/nameless-1', display: ' ' });
    const allergies = await own.getJson<LegacyBundle>('/api/AllergyIntolerance?patient=nameless-1&access_token=t');
    expect(allergies.entry[0]!.resource.patient).toEqual({ display: ', ', reference: 'Patient/nameless-1' });
  });

  it('a date alone in a timestamp field is local midnight; a partial date is left as written; a time without offset is local time', async () => {
    const observation = (await own.getJson<LegacyBundle>('/Observation?patient=nameless-1&access_token=t')).entry[0]!.resource;
    expect(observation.effectiveDateTime).toBe('2015-06-22T00:00:00.000-04:00');
    expect(observation.issued).toBe('2015-01-22T05:00:00.000-05:00');
    const condition = (await own.getJson<LegacyBundle>('/Condition?patient=nameless-1&access_token=t')).entry[0]!.resource;
    expect(condition.onsetDateTime).toBe('2019-05');
    // 02:30 on the night clocks went forward never happened in New York: moved later by the hour skipped.
    expect(condition.recordedDate).toBe('2019-03-10T03:30:00.000-04:00');
  });
});
