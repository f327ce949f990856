/**
 * `--data ../shared/data`: every record of the five kinds in the ten real synthetic patient files is
 * reachable through the legacy interface, each answer valid against its schema. Skipped, with the
 * reason printed, where ../shared/data is absent (a fresh clone on its own).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assessmentShape } from '../mappers/assessment.mapper.ts';
import { diagnosticReportRecord, diagnosticReportSearchEntry } from '../mappers/diagnostic-report.mapper.ts';
import { encounterShape } from '../mappers/encounter.mapper.ts';
import { observationShape } from '../mappers/observation.mapper.ts';
import { orderShape } from '../mappers/order.mapper.ts';
import { provenanceShape } from '../mappers/provenance.mapper.ts';
import type { Route } from '../src/route-types.ts';
import { ROUTES } from '../src/routes.ts';
import { DEFAULT_SITE_CODES } from '../src/site-codes.ts';
import { describeUnless } from './support/describe-unless.ts';
import { expectBundle, expectValid, startEmbeddedTestService, type EmbeddedTestService } from './support/embedded-service.ts';

const DATA_DIR = fileURLToPath(new URL('../../shared/data', import.meta.url));
const withData = describeUnless(existsSync(DATA_DIR) ? undefined : `${DATA_DIR} does not exist (a clone without ../shared)`);

/** How many resources of each type the source files hold, and how many Observations are surveys. */
function sourceCounts(): { byType: Map<string, number>; surveys: number; sdohGoals: number } {
  const byType = new Map<string, number>();
  let surveys = 0;
  let sdohGoals = 0;
  for (const file of readdirSync(DATA_DIR).filter((name) => name.endsWith('.json'))) {
    const bundle = JSON.parse(readFileSync(`${DATA_DIR}/${file}`, 'utf8')) as { entry: { resource: Record<string, unknown> }[] };
    for (const { resource } of bundle.entry) {
      const type = resource.resourceType as string;
      byType.set(type, (byType.get(type) ?? 0) + 1);
      if (type === 'Observation' && JSON.stringify(resource.category ?? []).includes('"survey"')) surveys += 1;
      if (type === 'Goal' && JSON.stringify(resource.category ?? []).includes('"sdoh"')) sdohGoals += 1;
    }
  }
  return { byType, surveys, sdohGoals };
}

withData('the sample patients of ../shared/data', () => {
  let service: EmbeddedTestService;
  let patientIds: string[];
  const counts = sourceCounts();

  beforeAll(async () => {
    service = await startEmbeddedTestService({ dataDir: DATA_DIR });
    patientIds = (await service.fhirSearch('Patient')).map((patient) => patient.id!);
  });
  afterAll(async () => service?.close());

  it('loads all ten patients', () => {
    expect(patientIds).toHaveLength(10);
  });

  /** Sums one legacy operation's results over every patient. */
  async function reachedPerPatient(path: string, count: (body: unknown) => number): Promise<number> {
    let total = 0;
    for (const id of patientIds) total += count(await service.getJson(`${path}${path.includes('?') ? '&' : '?'}patient=${id}`));
    return total;
  }

  it('reaches every DiagnosticReport by search and by id, client-chosen non-numeric ids too', async () => {
    let reached = 0;
    const ids: string[] = [];
    for (const id of patientIds) {
      const bundle = expectBundle(await service.getJson(`/api/DiagnosticReport?patient=${id}`), 'searchset', { DiagnosticReport: diagnosticReportSearchEntry });
      reached += bundle.total;
      for (const entry of bundle.entry) {
        ids.push(entry.full_url);
        expectValid(diagnosticReportRecord.schema, await service.getJson(`${entry.full_url}?access_token=t`), entry.full_url);
      }
    }
    expect(reached).toBe(counts.byType.get('DiagnosticReport'));
    expect(
      ids.some((url) => !/\/\d+$/.test(url)),
      'a PUT entry kept its non-numeric id',
    ).toBe(true);
  });

  it('reaches every Observation, with the Provenance that targets them', async () => {
    const shapes = { Observation: observationShape, Provenance: provenanceShape };
    const reached = await reachedPerPatient('/Observation?access_token=t&_revinclude=Provenance:target', (body) => {
      const bundle = expectBundle(body, 'search set', shapes);
      return bundle.entry.filter((entry) => entry.full_url.startsWith('/Observation/')).length;
    });
    expect(reached).toBe(counts.byType.get('Observation'));
  });

  it('reaches every Encounter, each with its serialized record', async () => {
    const reached = await reachedPerPatient('/Encounter', (body) => expectBundle(body, 'searchset', { Encounter: encounterShape }).total);
    expect(reached).toBe(counts.byType.get('Encounter'));
  });

  it('reaches every survey Observation as an Assessment and every ServiceRequest as an Order', async () => {
    const arrayOf = (shape: typeof assessmentShape) => (body: unknown) => {
      expect(Array.isArray(body)).toBe(true);
      for (const item of body as unknown[]) expectValid(shape.schema, item);
      return (body as unknown[]).length;
    };
    expect(await reachedPerPatient('/api/Assessments?access_token=t', arrayOf(assessmentShape))).toBe(counts.surveys);
    expect(await reachedPerPatient('/Orders?access_token=t', arrayOf(orderShape))).toBe(counts.byType.get('ServiceRequest') ?? 0);
  });

  /** Each kind's search: every record of the source files reached, each by-id read answering too. */
  const KINDS: [string, string, string | undefined, string | undefined][] = [
    // [search path, FHIR type, by-id path (Procedure has none in the spec), category that selects the records]
    ['/api/CarePlan', 'CarePlan', '/api/CarePlan', undefined],
    ['/api/CareTeam', 'CareTeam', '/api/CareTeam', undefined],
    ['/api/AllergyIntolerance', 'AllergyIntolerance', '/api/AllergyIntolerance', undefined],
    ['/api/Immunization', 'Immunization', '/api/Immunization', undefined],
    ['/Condition', 'Condition', '/Condition', undefined],
    ['/api/Coverage', 'Coverage', '/api/Coverage', undefined],
    ['/Procedure', 'Procedure', undefined, undefined],
    ['/api/Specimen', 'Specimen', '/api/Specimen', undefined],
    // Only Goals with the sdoh category are social-determinants goals; the sample files have none.
    ['/api/SDOHGoal', 'Goal', '/api/SDOHGoal', '"sdoh"'],
  ];
  it.each(KINDS)('reaches every record behind %s, and reads each by id', async (searchPath, type, readPath, category) => {
    let reached = 0;
    for (const id of patientIds) {
      const body = await service.getJson<{ total: number; entry: { full_url: string }[] }>(`${searchPath}?patient=${id}&access_token=t`);
      reached += body.total;
      // Kinds whose legacy payload names no id (`full_url` `/AllergyIntolerance/`): the FHIR server's ids.
      const withoutId = body.entry.some((entry) => entry.full_url === `/${type}/`);
      const ids = withoutId
        ? (await service.fhirSearch(type, `patient=Patient/${id}`)).map((record) => record.id!)
        : body.entry.map((entry) => entry.full_url.split('/')[2]!);
      if (withoutId) expect(ids).toHaveLength(body.total);
      for (const recordId of readPath === undefined ? [] : ids) {
        const record = await service.getJson(`${readPath}/${recordId}?access_token=t&patient=${id}`);
        expect(record).toMatchObject({ resourceType: type });
      }
    }
    expect(reached).toBe(category === undefined ? counts.byType.get(type) : counts.sdohGoals);
  });

  /** How many records of a route's upstream type the source files hold (its fixed category counted). */
  function sourceRecordsOf(route: Route): number {
    const category = route.upstream.select === undefined ? undefined : DEFAULT_SITE_CODES[route.upstream.select];
    if (category === 'sdoh') return counts.sdohGoals;
    if (category === 'survey') return counts.surveys;
    return counts.byType.get(route.upstream.resourceType) ?? 0;
  }

  it('answers every search operation for every patient, each record valid against its schema', async () => {
    for (const route of ROUTES.filter((candidate) => candidate.kind === 'search')) {
      let records = 0;
      for (const id of patientIds) {
        const query = `patient=${id}&access_token=t`;
        const init: RequestInit | undefined =
          route.method === 'POST' ? { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: query } : undefined;
        const response = await service.get(route.method === 'POST' ? route.path : `${route.path}?${query}`, init);
        const body = (await response.json()) as { entry?: { resource: { resourceType: string } }[] } | unknown[];
        expect(response.status, `${route.name} patient ${id}`).toBe(200);
        const found = Array.isArray(body) ? body : (body.entry ?? []).map((entry) => entry.resource).filter((r) => r.resourceType !== 'Provenance');
        records += found.length;
        for (const record of found) expectValid(route.shape.schema, record, `${route.name} patient ${id}`);
      }
      // Where the source files hold records of the kind, some patient's answer shows them.
      if (sourceRecordsOf(route) > 0) expect(records, `${route.name}: records over all patients`).toBeGreaterThan(0);
    }
  });

  it("reads every practitioner of the sample data by id, and names those of each patient's encounters", async () => {
    let named = 0;
    for (const id of patientIds) {
      const body = await service.getJson<{ entry: { full_url: string }[] }>(`/Practitioner?patient=${id}`);
      const encounters = await service.fhirSearch('Encounter', `patient=Patient/${id}`);
      const participants = encounters.flatMap((encounter) =>
        ((encounter.participant ?? []) as { individual?: { reference?: string } }[]).map((p) => p.individual?.reference ?? ''),
      );
      const expected = [...new Set(participants.filter((ref) => ref.startsWith('Practitioner/')))].map((ref) => `/${ref}`).sort();
      expect(body.entry.map((entry) => entry.full_url).sort(), `patient ${id}`).toEqual(expected);
      named += body.entry.length;
      for (const entry of body.entry) expect(await service.getJson(`${entry.full_url}?access_token=t`)).toMatchObject({ resourceType: 'Practitioner' });
    }
    expect(named, 'practitioners named over all patients').toBeGreaterThan(0);
    const all = await service.fhirSearch('Practitioner');
    expect(all.length).toBe(counts.byType.get('Practitioner'));
    for (const practitioner of all) expect(await service.getJson(`/Practitioner/${practitioner.id}?access_token=t`)).toMatchObject({ id: practitioner.id });
  });
});
