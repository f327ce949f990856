/**
 * DiagnosticReport over real HTTP against the embedded upstream: search with each filter, by id,
 * empty result, auth, bad input, unknown id; every payload checked against its schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnosticReportRecord, diagnosticReportSearchEntry } from '../mappers/diagnostic-report.mapper.ts';
import type { FhirResource } from '../src/upstream/fhir-client.ts';
import {
  expectBundle,
  expectOutcome,
  expectValid,
  idsOf,
  sortedIds,
  startEmbeddedTestService,
  type EmbeddedTestService,
  type LegacyBundle,
} from './support/embedded-service.ts';

let service: EmbeddedTestService;
let patientId: string;
let reports: FhirResource[];

beforeAll(async () => {
  service = await startEmbeddedTestService();
  // The patient with the most reports gives every filter something to cut.
  const counts = new Map<string, number>();
  for (const report of await service.fhirSearch('DiagnosticReport')) {
    const ref = (report.subject as { reference: string }).reference;
    counts.set(ref, (counts.get(ref) ?? 0) + 1);
  }
  patientId = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0].split('/')[1]!;
  reports = await service.fhirSearch('DiagnosticReport', `patient=Patient/${patientId}`);
});
afterAll(async () => service?.close());

const searchShapes = { DiagnosticReport: diagnosticReportSearchEntry };

async function search(query: string): Promise<LegacyBundle> {
  return expectBundle(await service.getJson(`/api/DiagnosticReport?${query}`), 'searchset', searchShapes);
}

describe('GET /api/DiagnosticReport', () => {
  it('returns every report of the patient, without ids inside the entries and without result', async () => {
    const bundle = await search(`patient=${patientId}`);
    expect(reports.length).toBeGreaterThan(3);
    expect(idsOf(bundle, 'DiagnosticReport')).toEqual(sortedIds(reports));
    for (const entry of bundle.entry) {
      expect(entry.resource).not.toHaveProperty('id');
      expect(entry.resource).not.toHaveProperty('result');
    }
  });

  it('is also served without the /api prefix and as POST _search with a form body', async () => {
    const viaGet = await search(`patient=${patientId}&start_date=2022-01-01`);
    const bare = expectBundle(await service.getJson(`/DiagnosticReport?patient=${patientId}&start_date=2022-01-01`), 'searchset', searchShapes);
    const response = await service.get('/api/DiagnosticReport/_search', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `patient=${patientId}&start_date=2022-01-01`,
    });
    expect(response.status).toBe(200);
    const posted = expectBundle(await response.json(), 'searchset', searchShapes);
    expect(idsOf(bare, 'DiagnosticReport')).toEqual(idsOf(viaGet, 'DiagnosticReport'));
    expect(idsOf(posted, 'DiagnosticReport')).toEqual(idsOf(viaGet, 'DiagnosticReport'));
  });

  const filters: [string, (report: FhirResource) => string][] = [
    ['start_date and end_date', () => 'start_date=2021-01-01&end_date=2023-06-30'],
    ['date with ge', () => 'date=ge2023-01-01'],
    ['date with lt', () => 'date=lt2021-01-01'],
    ['date with le and gt together', () => 'date=gt2020-06-01&date=le2022-12-31'],
    ['a bare code', (report) => `code=${codeOf(report).code}`],
    ['a system|code', (report) => `code=${encodeURIComponent(`${codeOf(report).system}|${codeOf(report).code}`)}`],
    ['a category', () => 'category=LAB'],
  ];
  it.each(filters)('filters by %s exactly as the FHIR server does', async (_, makeQuery) => {
    const query = makeQuery(reports[0]!);
    const bundle = await search(`patient=${patientId}&${query}`);
    const fhirQuery = query.replace('start_date=', 'date=ge').replace('end_date=', 'date=le');
    const expected = await service.fhirSearch('DiagnosticReport', `patient=Patient/${patientId}&${fhirQuery}`);
    expect(idsOf(bundle, 'DiagnosticReport')).toEqual(sortedIds(expected));
    // Each filter must provably cut: some reports in, some out.
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(reports.length);
  });

  it('compares start_date and end_date with the calendar date shown as effectiveDateTime', async () => {
    const bundle = await search(`patient=${patientId}&start_date=2022-03-01&end_date=2023-08-31`);
    const shown = bundle.entry.map((entry) => entry.resource.effectiveDateTime);
    // Worked out from the records themselves, not from the FHIR server's search.
    const expected = reports.filter((report) => {
      const written = String(report.effectiveDateTime ?? (report.effectivePeriod as { start?: string } | undefined)?.start ?? '');
      return written !== '' && written.slice(0, 10) >= '2022-03-01' && written.slice(0, 10) <= '2023-08-31';
    });
    expect(bundle.total).toBe(expected.length);
    expect(bundle.total).toBeGreaterThan(0);
    for (const date of shown as string[]) expect(date >= '2022-03-01' && date <= '2023-08-31').toBe(true);
  });

  it('answers an empty Bundle when nothing matches', async () => {
    const bundle = await search(`patient=${patientId}&start_date=2090-01-01`);
    expect(bundle.entry).toEqual([]);
    expect(bundle.total).toBe(0);
  });

  it('writes an unknown effective date and issued date as the absent-reason object', async () => {
    const undated = (await service.fhirSearch('DiagnosticReport')).find((report) => !report.effectiveDateTime && !report.effectivePeriod && !report.issued);
    expect(undated, 'the generated data has a report with no date').toBeDefined();
    const record = await service.getJson<Record<string, unknown>>(`/api/DiagnosticReport/${undated!.id}?access_token=t`);
    expect(record.effectiveDateTime).toMatchObject({ dataAbsentReason: { coding: [{ code: 'unknown' }] } });
    expect(record.issued).toMatchObject({ valueQuantity: { extension: { valueCode: 'unknown' } } });
  });

  it.each([
    ['a patient that is not an id', 'patient=12%2F3'],
    ['an impossible start_date', 'start_date=2021-02-30'],
    ['a start_date that is not a date', 'start_date=yesterday'],
    ['start_date after end_date', 'start_date=2022-01-02&end_date=2022-01-01'],
    ['an unknown date prefix', 'date=eq2022-01-01'],
    ['two patients', 'patient=1&patient=2'],
    ['an empty code', 'code='],
  ])('answers 400 with an OperationOutcome for %s', async (_, query) => {
    await expectOutcome(await service.get(`/api/DiagnosticReport?${query}`), 400);
  });
});

describe('GET /api/DiagnosticReport/:id', () => {
  it('returns the record with its id and result, matching the schema', async () => {
    const withResults = reports.find((report) => Array.isArray(report.result) && report.result.length > 0)!;
    const record = await service.getJson<Record<string, unknown>>(`/api/DiagnosticReport/${withResults.id}?access_token=t`);
    expectValid(diagnosticReportRecord.schema, record);
    expect(record.id).toBe(withResults.id);
    expect((record.result as unknown[]).length).toBe((withResults.result as unknown[]).length);
  });

  it('accepts the patient the record belongs to and hides it from another', async () => {
    const id = reports[0]!.id;
    expectValid(diagnosticReportRecord.schema, await service.getJson(`/api/DiagnosticReport/${id}?patient=${patientId}&access_token=t`));
    await expectOutcome(await service.get(`/api/DiagnosticReport/${id}?patient=999999&access_token=t`), 404);
  });

  it('answers 401 without a token, 404 for an unknown id, 400 for a malformed id', async () => {
    await expectOutcome(await service.get(`/api/DiagnosticReport/${reports[0]!.id}`), 401);
    await expectOutcome(await service.get('/api/DiagnosticReport/99999999?access_token=t'), 404);
    await expectOutcome(await service.get('/api/DiagnosticReport/bad%20id?access_token=t'), 400);
  });
});

function codeOf(report: FhirResource): { system: string; code: string } {
  return (report.code as { coding: { system: string; code: string }[] }).coding[0]!;
}
