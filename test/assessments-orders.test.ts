/**
 * Assessments and Orders: bare JSON arrays (`[]` when empty), 403 without a token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assessmentShape } from '../mappers/assessment.mapper.ts';
import { orderShape } from '../mappers/order.mapper.ts';
import { UTC_LEGACY_TIME } from '../mappers/legacy-time.ts';
import type { FhirResource } from '../src/upstream/fhir-client.ts';
import { expectOutcome, expectValid, startEmbeddedTestService, type EmbeddedTestService } from './support/embedded-service.ts';

let service: EmbeddedTestService;
let patient: FhirResource;

beforeAll(async () => {
  service = await startEmbeddedTestService();
  patient = (await service.fhirSearch('Patient'))[0]!;
});
afterAll(async () => service?.close());

describe('GET /api/Assessments', () => {
  it('returns the survey observations of the patient as a bare array', async () => {
    const body = await service.getJson<Record<string, unknown>[]>(`/api/Assessments?patient=${patient.id}&access_token=t`);
    const surveys = await service.fhirSearch('Observation', `patient=Patient/${patient.id}&category=survey`);
    expect(Array.isArray(body)).toBe(true);
    expect(surveys.length).toBeGreaterThan(0);
    expect(body).toHaveLength(surveys.length);
    for (const item of body) {
      expectValid(assessmentShape.schema, item);
      expect(JSON.parse(item.meta as string)).toHaveProperty('lastUpdated');
    }
  });

  it('filters by start_date and end_date on the effective date', async () => {
    const body = await service.getJson<{ effectiveDateTime: string }[]>(
      `/Assessments?patient=${patient.id}&start_date=2023-01-01&end_date=2023-12-31&access_token=t`,
    );
    const all = await service.fhirSearch('Observation', `patient=Patient/${patient.id}&category=survey`);
    const expected = all.filter((o) => String(o.effectiveDateTime).slice(0, 4) === '2023');
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(all.length);
    // The old system's timestamp form (mappers/legacy-time.ts), in the default zone UTC.
    expect(body.map((item) => item.effectiveDateTime).sort()).toEqual(expected.map((o) => UTC_LEGACY_TIME.timestamp(o.effectiveDateTime)).sort());
  });

  it('answers [] when nothing matches, 403 without a token, 400 for a bad date', async () => {
    expect(await service.getJson(`/api/Assessments?patient=999999&access_token=t`)).toEqual([]);
    await expectOutcome(await service.get(`/api/Assessments?patient=${patient.id}`), 403);
    await expectOutcome(await service.get(`/api/Assessments?patient=${patient.id}&end_date=2023-02-29&access_token=t`), 400);
  });
});

describe('GET /Orders', () => {
  it('returns one Order per ServiceRequest, dates compact, results from the reports based on it', async () => {
    const body = await service.getJson<Record<string, unknown>[]>(`/Orders?patient=${patient.id}&access_token=t`);
    const requests = await service.fhirSearch('ServiceRequest', `patient=Patient/${patient.id}`);
    expect(requests.length).toBeGreaterThan(0);
    expect(body.map((order) => order.basedOn).sort()).toEqual(requests.map((request) => `ServiceRequest/${request.id}`).sort());
    for (const order of body) expectValid(orderShape.schema, order);
    const reports = await service.fhirSearch('DiagnosticReport', `based-on=${requests.map((r) => `ServiceRequest/${r.id}`).join(',')}`);
    expect(reports.length).toBeGreaterThan(0);
    const report = reports[0]!;
    const order = body.find((item) => item.basedOn === (report.basedOn as { reference: string }[])[0]!.reference)!;
    expect(order.effectiveDateTime).toMatch(/^\d{8}$/);
    expect((order.result as unknown[]).length).toBeGreaterThanOrEqual((report.result as unknown[]).length);
    expect(order.conclusionCode).not.toBe('');
  });

  it('filters by start_date and end_date on the date the order was authored', async () => {
    const body = await service.getJson<{ basedOn: string }[]>(`/api/Orders?patient=${patient.id}&start_date=2022-01-01&end_date=2023-12-31&access_token=t`);
    const all = await service.fhirSearch('ServiceRequest', `patient=Patient/${patient.id}`);
    const expected = all.filter((request) => String(request.authoredOn) >= '2022-01-01' && String(request.authoredOn).slice(0, 10) <= '2023-12-31');
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(all.length);
    expect(body.map((order) => order.basedOn).sort()).toEqual(expected.map((request) => `ServiceRequest/${request.id}`).sort());
  });

  it('answers [] when nothing matches, 403 without a token, 400 for a bad patient', async () => {
    expect(await service.getJson(`/Orders?patient=${patient.id}&start_date=2090-01-01&access_token=t`)).toEqual([]);
    await expectOutcome(await service.get(`/Orders?patient=${patient.id}`), 403);
    await expectOutcome(await service.get('/Orders?patient=&access_token=t'), 400);
  });
});
