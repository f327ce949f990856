/**
 * README: "Each request writes one JSON log line … with no token and no patient data." Over real
 * HTTP against the embedded upstream, with one patient added whose ids, names and dates are
 * distinctive (the generated ones are small numbers that a duration or a count could equal): after
 * searches, by-id reads, a POST form search, a header token and errors, no line of the service's log
 * holds the token, the patient id, a record id, a name or a date of what was answered, or any query.
 */
import type { Bundle, Resource } from '@medplum/fhirtypes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedTestService, type EmbeddedTestService } from './support/embedded-service.ts';

const TOKEN = 'lgp-token-Zq81xW';
const PATIENT = 'lgp-patient-q7x2';
const FAMILY = 'Quillfeatherby';
const GIVEN = 'Ysoldine';
const BIRTH_DATE = '1934-02-17';
const REPORT = 'lgp-report-k3v9';
const CONDITION = 'lgp-condition-m5w1';
const OBSERVATION = 'lgp-observation-t8r4';
const IMMUNIZATION = 'lgp-immunization-h2p6';

const subject = { reference: `Patient/${PATIENT}` };
const RECORDS: Resource[] = [
  { resourceType: 'Patient', id: PATIENT, name: [{ family: FAMILY, given: [GIVEN] }], birthDate: BIRTH_DATE, gender: 'female' },
  {
    resourceType: 'DiagnosticReport',
    id: REPORT,
    status: 'final',
    subject,
    effectiveDateTime: '1988-06-21',
    issued: '1988-06-22T09:14:00+00:00',
    code: { coding: [{ system: 'http://loinc.org', code: '24323-8', display: 'Comprehensive metabolic panel' }] },
  },
  {
    resourceType: 'Condition',
    id: CONDITION,
    subject,
    onsetDateTime: '1979-11-03T08:30:00+00:00',
    recordedDate: '1979-11-05T10:00:00+00:00',
    clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'active' }] },
    verificationStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-ver-status', code: 'confirmed' }] },
    category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-category', code: 'problem-list-item' }] }],
    code: { coding: [{ system: 'http://snomed.info/sct', code: '38341003', display: 'Hypertension' }] },
  },
  {
    resourceType: 'Observation',
    id: OBSERVATION,
    status: 'final',
    subject,
    effectiveDateTime: '1991-03-14T11:00:00+00:00',
    issued: '1991-03-14T12:00:00+00:00',
    category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'social-history' }] }],
    code: { coding: [{ system: 'http://loinc.org', code: '72166-2', display: 'Tobacco smoking status' }] },
    valueCodeableConcept: { coding: [{ system: 'http://snomed.info/sct', code: '266919005' }] },
  },
  {
    resourceType: 'Immunization',
    id: IMMUNIZATION,
    status: 'completed',
    patient: subject,
    occurrenceDateTime: '1983-09-09T10:00:00+00:00',
    primarySource: true,
    vaccineCode: { coding: [{ system: 'http://hl7.org/fhir/sid/cvx', code: '140', display: 'Influenza, seasonal' }] },
  },
] as Resource[];

const form = (body: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

/** The requests of the run: [path with query, init, expected status]. */
const REQUESTS: [string, RequestInit | undefined, number][] = [
  [`/api/DiagnosticReport?patient=${PATIENT}&access_token=${TOKEN}`, undefined, 200],
  [`/api/DiagnosticReport/${REPORT}?patient=${PATIENT}&access_token=${TOKEN}`, undefined, 200],
  [`/Condition?patient=${PATIENT}&start_date=1979-01-01&access_token=${TOKEN}`, undefined, 200],
  [`/Condition/${CONDITION}?access_token=${TOKEN}`, undefined, 200],
  [`/Observation?patient=${PATIENT}&_revinclude=Provenance:target&access_token=${TOKEN}`, undefined, 200],
  [`/api/Immunization?patient=${PATIENT}`, { headers: { authorization: `Bearer ${TOKEN}` } }, 200],
  ['/api/DiagnosticReport/_search', form(`patient=${PATIENT}&end_date=1999-12-31&access_token=${TOKEN}`), 200],
  [`/api/DiagnosticReport/lgp-missing-record-55?access_token=${TOKEN}`, undefined, 404],
  [`/api/DiagnosticReport?patient=${PATIENT}&start_date=1934-02-31&access_token=${TOKEN}`, undefined, 400],
  [`/api/Immunization/${IMMUNIZATION}?patient=lgp-other-patient-9&access_token=${TOKEN}`, undefined, 404],
];

let service: EmbeddedTestService;
const answers: unknown[] = [];

beforeAll(async () => {
  service = await startEmbeddedTestService();
  const bundle: Bundle = {
    resourceType: 'Bundle',
    type: 'transaction',
    entry: RECORDS.map((resource) => ({ resource, request: { method: 'PUT', url: `${resource.resourceType}/${resource.id}` } })),
  };
  await service.embedded!.load([bundle]);
  for (const [path, init, status] of REQUESTS) {
    const response = await service.get(path, init);
    const body = await response.text();
    expect(response.status, `${path} → ${body.slice(0, 200)}`).toBe(status);
    if (status === 200) answers.push(JSON.parse(body));
  }
});
afterAll(async () => service?.close());

/** Ids, names (`display` of the patient references) and dates in an answer, `meta` left out (server data). */
function patientValues(value: unknown, key = ''): string[] {
  if (typeof value === 'string') {
    if (key === 'id' || key === 'full_url') return [value.split('/').at(-1)!];
    if (key === 'display' || key === 'reference') return [value.replace(/^Patient\//, '')];
    return /^\d{4}-\d{2}-\d{2}/.test(value) ? [value, value.slice(0, 10)] : [];
  }
  if (Array.isArray(value)) return value.flatMap((item) => patientValues(item, key));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([name, item]) => (name === 'meta' ? [] : patientValues(item, name)));
  }
  return [];
}

describe('the access log', () => {
  it('has one request line per request (so the checks below look at something)', () => {
    const requests = service.logLines.map((line) => JSON.parse(line) as { message: string; route?: string }).filter((line) => line.message === 'request');
    expect(requests).toHaveLength(REQUESTS.length);
    expect(requests.map((line) => line.route)).toContain('DiagnosticReport.read');
  });

  it('holds none of the ids, names or dates of the answers', () => {
    const values = new Set(answers.flatMap((answer) => patientValues(answer)).filter((value) => value.length >= 6));
    // The answers did carry the patient's data: otherwise this test would check nothing. (An
    // Immunization answer names no id, `full_url` `/Immunization/`: its date stands for it.)
    for (const expected of [PATIENT, REPORT, CONDITION, OBSERVATION, '1983-09-09', '1988-06-21', '1979-11-03']) expect([...values]).toContain(expected);
    expect([...values].some((value) => value.includes(FAMILY))).toBe(true);
    const log = service.logLines.join('\n');
    for (const value of values) expect(log, value).not.toContain(value);
  });

  it('holds neither the token, the patient data the test loaded, nor any query string or parameter value', () => {
    const queries = REQUESTS.map(([path, init]) => (init?.body ? String(init.body) : path.slice(path.indexOf('?') + 1)));
    const forbidden = [TOKEN, PATIENT, FAMILY, GIVEN, BIRTH_DATE, 'lgp-missing-record-55', 'lgp-other-patient-9', '1934-02-31', ...queries];
    for (const query of queries) forbidden.push(...[...new URLSearchParams(query).values()].filter((value) => value.length >= 6));
    const log = service.logLines.join('\n');
    for (const value of forbidden) expect(log, value).not.toContain(value);
    expect(log).not.toMatch(/lgp-/);
  });
});
