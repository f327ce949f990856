/**
 * Unit tests of the mappers for CarePlan, CareTeam, AllergyIntolerance, Immunization, Condition,
 * Coverage, Procedure, Goal, Specimen and Practitioner (spec 2.4-2.17): exact outputs, so key presence
 * and order are checked, and every output against its shape's strict schema.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { allergyIntoleranceShape } from '../mappers/allergy-intolerance.mapper.ts';
import { carePlanShape } from '../mappers/care-plan.mapper.ts';
import { careTeamShape } from '../mappers/care-team.mapper.ts';
import { conditionShape } from '../mappers/condition.mapper.ts';
import { coverageShape } from '../mappers/coverage.mapper.ts';
import { goalShape } from '../mappers/goal.mapper.ts';
import { immunizationShape } from '../mappers/immunization.mapper.ts';
import { createMapContext, type LegacyShape } from '../mappers/legacy-shape.ts';
import { practitionerShape } from '../mappers/practitioner.mapper.ts';
import { procedureShape } from '../mappers/procedure.mapper.ts';
import { specimenShape } from '../mappers/specimen.mapper.ts';
import type { FhirResource } from '../src/upstream/fhir-client.ts';

const SNOMED = 'http://snomed.info/sct';
const CVX = 'http://hl7.org/fhir/sid/cvx';
const CLINICAL = 'http://terminology.hl7.org/CodeSystem/condition-clinical';
const VERIFICATION = 'http://terminology.hl7.org/CodeSystem/condition-ver-status';
const ALLERGY_CLINICAL = 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical';
const ALLERGY_VERIFICATION = 'http://terminology.hl7.org/CodeSystem/allergyintolerance-verification';
const META = { versionId: '3', lastUpdated: '2024-03-05T10:20:30Z', profile: ['http://hl7.org/fhir/us/core/StructureDefinition/x'] };
const LEGACY_META = { versionId: '3', lastUpdated: '2024-03-05T10:20:30.000+00:00', profile: ['http://hl7.org/fhir/us/core/StructureDefinition/x'] };

const patient: FhirResource = { resourceType: 'Patient', id: '42', name: [{ use: 'official', family: 'Rivera', given: ['Ana', 'M'] }] };
const practitioner: FhirResource = { resourceType: 'Practitioner', id: 'pr-7', name: [{ family: 'Okafor', given: ['Chidi'], prefix: ['Dr.'] }] };
const organization: FhirResource = { resourceType: 'Organization', id: 'org-1', name: 'Riverside Clinic' };
const context = createMapContext([patient, practitioner, organization]);
const none = createMapContext([]);

/** Maps and checks the output against the shape's schema (every case of every shape). */
function mapValid(shape: LegacyShape, resource: FhirResource, mapContext = context): Record<string, unknown> {
  const output = shape.map(resource, mapContext);
  const result = v.safeParse(shape.schema, output);
  expect(result.success, JSON.stringify(result.issues?.map((issue) => [issue.path?.map((p) => p.key), issue.message]))).toBe(true);
  return output;
}

/** Deep equality plus the top-level key order (the expected objects are written in the spec's order). */
function expectExactly(output: Record<string, unknown>, expected: Record<string, unknown>): void {
  expect(output).toEqual(expected);
  expect(Object.keys(output)).toEqual(Object.keys(expected));
}

describe('CarePlan (2.4)', () => {
  it('keeps the narrative and names the subject from the included Patient', () => {
    const plan: FhirResource = {
      resourceType: 'CarePlan', id: 'cp-1', meta: META,
      text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">Diabetes self management plan</div>' },
      status: 'active', intent: 'plan',
      category: [{ coding: [{ system: 'http://hl7.org/fhir/us/core/CodeSystem/careplan-category', code: 'assess-plan', display: 'Assessment and Plan' }] }],
      subject: { reference: 'https://fhir.example.org/fhir/Patient/42' },
    };
    expectExactly(mapValid(carePlanShape, plan), {
      resourceType: 'CarePlan', id: 'cp-1', meta: LEGACY_META,
      text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">Diabetes self management plan</div>' },
      status: 'active', intent: 'plan',
      category: [{ coding: [{ system: 'http://hl7.org/fhir/us/core/CodeSystem/careplan-category', code: 'assess-plan' }] }],
      subject: { reference: 'Patient/42', display: 'Ana M Rivera' },
    });
  });

  it('writes null for a missing narrative and subject, [] for no category', () => {
    const output = mapValid(carePlanShape, { resourceType: 'CarePlan', id: 'cp-2', status: 'unknown', intent: 'proposal' }, none);
    expectExactly(output, {
      resourceType: 'CarePlan', id: 'cp-2', meta: { profile: [] }, text: null, status: 'unknown', intent: 'proposal', category: [], subject: null,
    });
  });
});

describe('CareTeam (2.5)', () => {
  const team: FhirResource = {
    resourceType: 'CareTeam', id: 'ct-1', meta: META, status: 'active',
    subject: { reference: 'Patient/42', display: 'Ana Rivera' },
    participant: [
      { role: [{ coding: [{ system: SNOMED, code: '223366009', display: 'Healthcare professional' }] }], member: { reference: 'Practitioner/pr-7' } },
      { role: [{ coding: [{ system: SNOMED, code: '224891009', display: 'Healthcare services' }], text: 'Clinic' }], member: { reference: 'Organization/org-1' } },
      { role: [{ text: 'Caregiver' }] },
    ],
  };

  it('names Practitioner and Organization members from the included resources', () => {
    expectExactly(mapValid(careTeamShape, team), {
      resourceType: 'CareTeam', id: 'ct-1', meta: LEGACY_META, status: 'active',
      subject: { reference: 'Patient/42', display: 'Ana Rivera' },
      participant: [
        { role: [{ coding: [{ system: SNOMED, code: '223366009', display: 'Healthcare professional' }] }], member: { reference: 'Practitioner/pr-7', display: 'Chidi Okafor' } },
        { role: [{ coding: [{ system: SNOMED, code: '224891009', display: 'Healthcare services' }] }], member: { reference: 'Organization/org-1', display: 'Riverside Clinic' } },
        { role: [{ coding: [] }], member: null },
      ],
    });
  });

  it('leaves display out when nothing names the member', () => {
    const output = mapValid(careTeamShape, team, none);
    expect((output.participant as { member: unknown }[])[0]!.member).toEqual({ reference: 'Practitioner/pr-7' });
  });
});

describe('AllergyIntolerance (2.6)', () => {
  const allergy: FhirResource = {
    resourceType: 'AllergyIntolerance', id: 'al-1', meta: META,
    clinicalStatus: { coding: [{ system: ALLERGY_CLINICAL, code: 'active', display: 'Active' }] },
    verificationStatus: { coding: [{ system: ALLERGY_VERIFICATION, code: 'unconfirmed' }] },
    code: { coding: [{ system: SNOMED, code: '91936005', display: 'Allergy to penicillin' }], text: 'Penicillin' },
    patient: { reference: 'Patient/42' },
    reaction: [{ manifestation: [{ coding: [{ system: SNOMED, code: '247472004', display: 'Hives' }] }], severity: 'moderate' }, { manifestation: [{ text: 'Rash' }] }],
  };

  it('writes patient display first, named from the included Patient; no id, no meta', () => {
    const output = mapValid(allergyIntoleranceShape, allergy);
    expectExactly(output, {
      resourceType: 'AllergyIntolerance',
      code: { coding: [{ system: SNOMED, code: '91936005', display: 'Allergy to penicillin' }], text: 'Penicillin' },
      reaction: [
        { manifestation: [{ coding: [{ system: SNOMED, code: '247472004', display: 'Hives' }] }], severity: 'moderate' },
        { manifestation: [{ coding: [], text: 'Rash' }], severity: null },
      ],
      clinicalStatus: { coding: [{ system: ALLERGY_CLINICAL, code: 'active' }] },
      verificationStatus: { coding: [{ system: ALLERGY_VERIFICATION, code: 'unconfirmed' }] },
      patient: { display: 'Ana M Rivera', reference: 'Patient/42' },
    });
    expect(Object.keys(output.patient as object)).toEqual(['display', 'reference']);
  });

  it('writes null for missing statuses (an entered-in-error record has no clinicalStatus)', () => {
    const output = mapValid(allergyIntoleranceShape, { resourceType: 'AllergyIntolerance', id: 'al-2', patient: { reference: 'Patient/9', display: 'J Doe' } });
    expectExactly(output, {
      resourceType: 'AllergyIntolerance', code: null, reaction: [], clinicalStatus: null, verificationStatus: null,
      patient: { display: 'J Doe', reference: 'Patient/9' },
    });
  });
});

describe('Immunization (2.7)', () => {
  it('maps a not-done immunization with its reason', () => {
    const notDone: FhirResource = {
      resourceType: 'Immunization', id: 'im-1', meta: META, status: 'not-done',
      statusReason: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ActReason', code: 'PATOBJ', display: 'patient objection' }] },
      vaccineCode: { coding: [{ system: CVX, code: '140', display: 'Influenza, seasonal, injectable, preservative free' }] },
      patient: { reference: 'Patient/42' }, occurrenceDateTime: '2023-10-02T09:30:00-04:00', primarySource: false,
    };
    expectExactly(mapValid(immunizationShape, notDone), {
      resourceType: 'Immunization', occurrenceDateTime: '2023-10-02T09:30:00-04:00', status: 'not-done',
      statusReason: { text: 'patient objection' },
      vaccineCode: { coding: [{ system: CVX, code: '140', display: 'Influenza, seasonal, injectable, preservative free' }] },
      patient: { reference: 'Patient/42' }, primarySource: false,
    });
  });

  it('maps a completed immunization without reason or primarySource to nulls', () => {
    const completed: FhirResource = {
      resourceType: 'Immunization', id: 'im-2', status: 'completed',
      vaccineCode: { coding: [{ system: CVX, code: '208', display: 'SARS-COV-2 (COVID-19) vaccine, mRNA' }], text: 'COVID-19 mRNA' },
      patient: { reference: 'Patient/42/_history/2' }, occurrenceDateTime: '2021-04-11T10:00:00+00:00',
    };
    expectExactly(mapValid(immunizationShape, completed), {
      resourceType: 'Immunization', occurrenceDateTime: '2021-04-11T10:00:00+00:00', status: 'completed', statusReason: null,
      vaccineCode: { coding: [{ system: CVX, code: '208', display: 'SARS-COV-2 (COVID-19) vaccine, mRNA' }], text: 'COVID-19 mRNA' },
      patient: { reference: 'Patient/42' }, primarySource: null,
    });
  });

  it('takes statusReason.text first, and a bare code as the last resort', () => {
    const base: FhirResource = { resourceType: 'Immunization', status: 'not-done', patient: { reference: 'Patient/42' } };
    expect(mapValid(immunizationShape, { ...base, statusReason: { text: 'Out of stock', coding: [{ code: 'OSTOCK', display: 'product out of stock' }] } }).statusReason).toEqual({ text: 'Out of stock' });
    expect(mapValid(immunizationShape, { ...base, statusReason: { coding: [{ code: 'IMMUNE' }] } }).statusReason).toEqual({ text: 'IMMUNE' });
  });
});

describe('Condition (2.8)', () => {
  const active: FhirResource = {
    resourceType: 'Condition', id: 'c-1', meta: META,
    clinicalStatus: { coding: [{ system: CLINICAL, code: 'active' }] },
    verificationStatus: { coding: [{ system: VERIFICATION, code: 'confirmed' }] },
    category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-category', code: 'problem-list-item', display: 'Problem List Item' }] }],
    code: { coding: [{ system: SNOMED, code: '44054006', display: 'Diabetes mellitus type 2' }], text: 'Type 2 diabetes' },
    subject: { reference: 'Patient/42' }, encounter: { reference: 'Encounter/e-5' },
    onsetDateTime: '2015-06-01T08:00:00-05:00', recordedDate: '2015-06-01T08:30:00-05:00',
  };

  it('leaves abatementDateTime out of an active condition', () => {
    const output = mapValid(conditionShape, active);
    expectExactly(output, {
      resourceType: 'Condition', id: 'c-1', meta: LEGACY_META,
      clinicalStatus: { coding: [{ system: CLINICAL, code: 'active' }] },
      verificationStatus: { coding: [{ system: VERIFICATION, code: 'confirmed' }] },
      category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-category', code: 'problem-list-item', display: 'Problem List Item' }] }],
      code: { coding: [{ system: SNOMED, code: '44054006', display: 'Diabetes mellitus type 2' }] },
      subject: { reference: 'Patient/42', display: 'Ana M Rivera' },
      recordedDate: '2015-06-01T08:30:00-05:00', onsetDateTime: '2015-06-01T08:00:00-05:00',
      encounter: { reference: 'Encounter/e-5' },
    });
    expect(output).not.toHaveProperty('abatementDateTime');
  });

  it('writes abatementDateTime, before encounter, on a resolved condition', () => {
    const resolved = { ...active, clinicalStatus: { coding: [{ system: CLINICAL, code: 'resolved' }] }, abatementDateTime: '2016-01-10T00:00:00Z' };
    const output = mapValid(conditionShape, resolved);
    expect(output.abatementDateTime).toBe('2016-01-10T00:00:00Z');
    expect(Object.keys(output).slice(-3)).toEqual(['onsetDateTime', 'abatementDateTime', 'encounter']);
  });

  it('writes null for the missing required members', () => {
    const output = mapValid(conditionShape, { resourceType: 'Condition', id: 'c-2', subject: { reference: 'Patient/42' }, onsetPeriod: { start: '2019-02-03' } }, none);
    expectExactly(output, {
      resourceType: 'Condition', id: 'c-2', meta: { profile: [] }, clinicalStatus: null, verificationStatus: null, category: [], code: null,
      subject: { reference: 'Patient/42' }, recordedDate: null, onsetDateTime: '2019-02-03', encounter: null,
    });
  });
});

describe('Coverage (2.11)', () => {
  it('passes the FHIR values through, references normalized, class as Class', () => {
    const coverage: FhirResource = {
      resourceType: 'Coverage', id: 'cov-1', meta: META,
      identifier: [{ system: 'https://payer.example.com/member', value: 'M123', assigner: { reference: 'https://fhir.example.org/fhir/Organization/org-1' } }],
      status: 'active',
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'HIP', display: 'health insurance plan policy' }] },
      subscriber: { reference: 'Patient/42/_history/1', display: 'Ana Rivera' }, subscriberId: 'SUB-99',
      beneficiary: { reference: 'Patient/42' },
      relationship: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/subscriber-relationship', code: 'self' }] },
      period: { start: '2024-01-01' }, payor: [{ reference: 'Organization/org-1' }, { display: 'Self-pay' }],
      class: [{ type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/coverage-class', code: 'group' }] }, value: 'G-17', name: 'Employer group' }],
    };
    expectExactly(mapValid(coverageShape, coverage), {
      resourceType: 'Coverage', id: 'cov-1',
      identifier: [{ system: 'https://payer.example.com/member', value: 'M123', assigner: { reference: 'Organization/org-1' } }],
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'HIP', display: 'health insurance plan policy' }] },
      status: 'active', subscriber: { reference: 'Patient/42', display: 'Ana Rivera' }, beneficiary: { reference: 'Patient/42' },
      relationship: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/subscriber-relationship', code: 'self' }] },
      subscriberId: 'SUB-99', period: { start: '2024-01-01' }, payor: [{ reference: 'Organization/org-1' }, { display: 'Self-pay' }],
      Class: [{ type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/coverage-class', code: 'group' }] }, value: 'G-17', name: 'Employer group' }],
    });
  });

  it('writes null and [] for what a minimal Coverage lacks', () => {
    const output = mapValid(coverageShape, { resourceType: 'Coverage', id: 'cov-2', status: 'active', beneficiary: { reference: 'Patient/42' }, payor: [{ reference: 'Patient/42' }] });
    expectExactly(output, {
      resourceType: 'Coverage', id: 'cov-2', identifier: [], type: null, status: 'active', subscriber: null, beneficiary: { reference: 'Patient/42' },
      relationship: null, subscriberId: null, period: null, payor: [{ reference: 'Patient/42' }], Class: [],
    });
  });
});

describe('Procedure (2.13)', () => {
  const procedure: FhirResource = {
    resourceType: 'Procedure', id: 'p-1', meta: META, status: 'completed',
    code: { coding: [{ system: SNOMED, code: '73761001', display: 'Colonoscopy' }], text: 'Colonoscopy' },
    subject: { reference: 'Patient/42' },
    performedPeriod: { start: '2022-09-14T23:30:00-04:00', end: '2022-09-15T00:15:00-04:00' },
  };

  it('writes performedPeriod as calendar dates as written', () => {
    expectExactly(mapValid(procedureShape, procedure), {
      resourceType: 'Procedure', id: 'p-1', meta: LEGACY_META, status: 'completed',
      code: { coding: [{ system: SNOMED, code: '73761001', display: 'Colonoscopy' }] },
      subject: { reference: 'Patient/42', display: 'Ana M Rivera' },
      performedPeriod: { start: '2022-09-14', end: '2022-09-15' },
    });
  });

  it('uses performedDateTime as both ends, and nulls when nothing is known', () => {
    const { performedPeriod: _, ...rest } = procedure;
    expect(mapValid(procedureShape, { ...rest, performedDateTime: '2020-02-29T10:00:00Z' }).performedPeriod).toEqual({ start: '2020-02-29', end: '2020-02-29' });
    expect(mapValid(procedureShape, rest).performedPeriod).toEqual({ start: null, end: null });
    expect(mapValid(procedureShape, { ...rest, performedPeriod: { start: '2021-05-01' } }).performedPeriod).toEqual({ start: '2021-05-01', end: null });
  });
});

describe('Goal (2.15)', () => {
  it('maps a social-determinants goal, target as FHIR writes it', () => {
    const goal: FhirResource = {
      resourceType: 'Goal', id: 'g-1', meta: META, lifecycleStatus: 'active',
      achievementStatus: { coding: [{ code: 'in-progress' }] },
      description: { coding: [{ system: SNOMED, code: '1078229009', display: 'Food security' }], text: 'Food security' },
      subject: { reference: 'Patient/42' },
      target: [{ measure: { coding: [{ system: 'http://loinc.org', code: '88124-3' }] }, detailCodeableConcept: { text: 'Food secure' }, dueDate: '2024-12-31' }],
    };
    expectExactly(mapValid(goalShape, goal), {
      resourceType: 'Goal', id: 'g-1', lifecycleStatus: 'active',
      description: { coding: [{ system: SNOMED, code: '1078229009', display: 'Food security' }], text: 'Food security' },
      subject: { reference: 'Patient/42', display: 'Ana M Rivera' },
      target: [{ measure: { coding: [{ system: 'http://loinc.org', code: '88124-3' }] }, detailCodeableConcept: { text: 'Food secure' }, dueDate: '2024-12-31' }],
    });
  });

  it('writes [] for no target and keeps a text-only description', () => {
    const output = mapValid(goalShape, { resourceType: 'Goal', id: 'g-2', lifecycleStatus: 'proposed', description: { text: 'Find stable housing' }, subject: { reference: 'Patient/42' } }, none);
    expectExactly(output, {
      resourceType: 'Goal', id: 'g-2', lifecycleStatus: 'proposed', description: { coding: [], text: 'Find stable housing' }, subject: { reference: 'Patient/42' }, target: [],
    });
  });
});

describe('Specimen (2.16)', () => {
  it('passes type, collection and container through, references normalized', () => {
    const specimen: FhirResource = {
      resourceType: 'Specimen', id: 's-1', meta: META, status: 'available',
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0487', code: 'BLD', display: 'Whole blood' }] },
      subject: { reference: 'http://fhir.example.org/fhir/Patient/42', display: 'Ana Rivera' },
      collection: { collector: { reference: 'Practitioner/pr-7' }, collectedDateTime: '2024-02-01T07:45:00-05:00', quantity: { value: 5, unit: 'mL' } },
      container: [{ type: { text: 'Lavender top tube' }, capacity: { value: 6, unit: 'mL' } }],
    };
    expectExactly(mapValid(specimenShape, specimen), {
      resourceType: 'Specimen', id: 's-1',
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0487', code: 'BLD', display: 'Whole blood' }] },
      subject: { reference: 'Patient/42', display: 'Ana Rivera' },
      collection: { collector: { reference: 'Practitioner/pr-7' }, collectedDateTime: '2024-02-01T07:45:00-05:00', quantity: { value: 5, unit: 'mL' } },
      container: [{ type: { text: 'Lavender top tube' }, capacity: { value: 6, unit: 'mL' } }],
    });
  });

  it('writes null and [] for a specimen without collection or container', () => {
    const output = mapValid(specimenShape, { resourceType: 'Specimen', id: 's-2', subject: { reference: 'Patient/42' } }, none);
    expectExactly(output, { resourceType: 'Specimen', id: 's-2', type: null, subject: { reference: 'Patient/42' }, collection: null, container: [] });
  });

  it('fails the schema for a FHIR value of the wrong type', () => {
    const output = specimenShape.map({ resourceType: 'Specimen', id: 's-3', collection: { quantity: { value: 'five' } } }, none);
    expect(v.safeParse(specimenShape.schema, output).success).toBe(false);
  });
});

describe('Practitioner (2.17)', () => {
  it('keeps the listed members, address period start as a date', () => {
    const doctor: FhirResource = {
      resourceType: 'Practitioner', id: 'pr-7', meta: META, active: true,
      identifier: [{ use: 'official', system: 'http://hl7.org/fhir/sid/us-npi', value: '9999999999' }],
      name: [{ use: 'official', family: 'Okafor', given: ['Chidi', 'A'], prefix: ['Dr.'] }],
      telecom: [{ system: 'phone', value: '555-0100', use: 'work' }, { system: 'email', value: 'c.okafor@example.org' }],
      address: [
        { line: ['1 Main St', 'Suite 2'], city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US', period: { start: '2019-07-01T00:00:00Z' } },
        { city: 'Chicago', period: { end: '2018-12-31' } },
      ],
    };
    expectExactly(mapValid(practitionerShape, doctor), {
      resourceType: 'Practitioner', id: 'pr-7', meta: LEGACY_META,
      identifier: [{ system: 'http://hl7.org/fhir/sid/us-npi', value: '9999999999' }],
      name: [{ family: 'Okafor', given: ['Chidi', 'A'] }],
      telecom: [{ system: 'phone', value: '555-0100', use: 'work' }, { system: 'email', value: 'c.okafor@example.org' }],
      address: [
        { line: ['1 Main St', 'Suite 2'], postalCode: '62701', city: 'Springfield', state: 'IL', country: 'US', period: { start: '2019-07-01' } },
        { line: [], city: 'Chicago' },
      ],
    });
  });

  it('writes [] for every list the upstream lacks', () => {
    expectExactly(mapValid(practitionerShape, { resourceType: 'Practitioner', id: 'pr-8', name: [{ text: 'Nurse Joy' }] }), {
      resourceType: 'Practitioner', id: 'pr-8', meta: { profile: [] }, identifier: [], name: [{ given: [] }], telecom: [], address: [],
    });
  });
});
