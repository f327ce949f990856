/**
 * Unit tests of the CarePlan, CareTeam, AllergyIntolerance, Immunization and Condition mappers (spec
 * 2.4-2.8): exact outputs, so key presence and order are checked, and every output against its schema.
 */
import { describe, expect, it } from 'vitest';
import { carePlanShape } from '../mappers/care-plan.mapper.ts';
import { careTeamShape } from '../mappers/care-team.mapper.ts';
import { allergyIntoleranceShape } from '../mappers/allergy-intolerance.mapper.ts';
import { immunizationShape } from '../mappers/immunization.mapper.ts';
import { conditionShape } from '../mappers/condition.mapper.ts';
import type { FhirResource } from '../src/upstream/fhir-client.ts';
import {
  ALLERGY_CLINICAL,
  ALLERGY_VERIFICATION,
  CLINICAL,
  CVX,
  LEGACY_META,
  META,
  NO_META,
  SNOMED,
  VERIFICATION,
  expectExactly,
  mapValid,
  none,
} from './support/mapper-fixtures.ts';

describe('CarePlan (2.4)', () => {
  it('keeps the narrative and names the subject from the included Patient', () => {
    const plan: FhirResource = {
      resourceType: 'CarePlan',
      id: 'cp-1',
      meta: META,
      text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">Diabetes self management plan</div>' },
      status: 'active',
      intent: 'plan',
      category: [{ coding: [{ system: 'http://hl7.org/fhir/us/core/CodeSystem/careplan-category', code: 'assess-plan', display: 'Assessment and Plan' }] }],
      subject: { reference: 'https://fhir.example.org/fhir/Patient/42' },
    };
    expectExactly(mapValid(carePlanShape, plan), {
      resourceType: 'CarePlan',
      id: 'cp-1',
      meta: LEGACY_META,
      text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">Diabetes self management plan</div>' },
      status: 'active',
      intent: 'plan',
      category: [{ coding: [{ system: 'http://hl7.org/fhir/us/core/CodeSystem/careplan-category', code: 'assess-plan' }] }],
      subject: { reference: 'Patient/42', display: 'Ana Rivera' },
    });
  });

  it('writes null for a missing narrative and subject, [] for no category', () => {
    const output = mapValid(carePlanShape, { resourceType: 'CarePlan', id: 'cp-2', status: 'unknown', intent: 'proposal' }, none);
    expectExactly(output, {
      resourceType: 'CarePlan',
      id: 'cp-2',
      meta: NO_META,
      text: null,
      status: 'unknown',
      intent: 'proposal',
      category: [],
      subject: null,
    });
  });
});

describe('CareTeam (2.5)', () => {
  const team: FhirResource = {
    resourceType: 'CareTeam',
    id: 'ct-1',
    meta: META,
    status: 'active',
    subject: { reference: 'Patient/42', display: 'Ana Rivera' },
    participant: [
      { role: [{ coding: [{ system: SNOMED, code: '223366009', display: 'Healthcare professional' }] }], member: { reference: 'Practitioner/pr-7' } },
      {
        role: [{ coding: [{ system: SNOMED, code: '224891009', display: 'Healthcare services' }], text: 'Clinic' }],
        member: { reference: 'Organization/org-1' },
      },
      { role: [{ text: 'Caregiver' }] },
    ],
  };

  it('names Practitioner and Organization members from the included resources', () => {
    expectExactly(mapValid(careTeamShape, team), {
      resourceType: 'CareTeam',
      id: 'ct-1',
      meta: LEGACY_META,
      status: 'active',
      subject: { reference: 'Patient/42', display: 'Ana Rivera' },
      participant: [
        {
          role: [{ coding: [{ system: SNOMED, code: '223366009', display: 'Healthcare professional' }] }],
          member: { reference: 'Practitioner/pr-7', display: 'Chidi Okafor' },
        },
        {
          role: [{ coding: [{ system: SNOMED, code: '224891009', display: 'Healthcare services' }] }],
          member: { reference: 'Organization/org-1', display: 'Riverside Clinic' },
        },
        { role: [{ coding: [] }], member: null },
      ],
    });
  });

  it('writes display null when nothing names the member', () => {
    const output = mapValid(careTeamShape, team, none);
    expect((output.participant as { member: unknown }[])[0]!.member).toEqual({ reference: 'Practitioner/pr-7', display: null });
  });
});

describe('AllergyIntolerance (2.6)', () => {
  const allergy: FhirResource = {
    resourceType: 'AllergyIntolerance',
    id: 'al-1',
    meta: META,
    clinicalStatus: { coding: [{ system: ALLERGY_CLINICAL, code: 'active', display: 'Active' }] },
    verificationStatus: { coding: [{ system: ALLERGY_VERIFICATION, code: 'unconfirmed' }] },
    code: { coding: [{ system: SNOMED, code: '91936005', display: 'Allergy to penicillin' }], text: 'Penicillin' },
    patient: { reference: 'Patient/42' },
    reaction: [
      { manifestation: [{ coding: [{ system: SNOMED, code: '247472004', display: 'Hives' }] }], severity: 'moderate' },
      { manifestation: [{ text: 'Rash' }] },
    ],
  };

  it('writes patient display first, `Given, Family` from the included Patient; no id, no meta', () => {
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
      patient: { display: 'Ana, Rivera', reference: 'Patient/42' },
    });
    expect(Object.keys(output.patient as object)).toEqual(['display', 'reference']);
  });

  it('writes null for missing statuses (an entered-in-error record has no clinicalStatus)', () => {
    const output = mapValid(allergyIntoleranceShape, { resourceType: 'AllergyIntolerance', id: 'al-2', patient: { reference: 'Patient/9', display: 'J Doe' } });
    expectExactly(output, {
      resourceType: 'AllergyIntolerance',
      code: null,
      reaction: [],
      clinicalStatus: null,
      verificationStatus: null,
      patient: { display: 'J Doe', reference: 'Patient/9' },
    });
  });
});

describe('Immunization (2.7)', () => {
  it('maps a not-done immunization with its reason', () => {
    const notDone: FhirResource = {
      resourceType: 'Immunization',
      id: 'im-1',
      meta: META,
      status: 'not-done',
      statusReason: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ActReason', code: 'PATOBJ', display: 'patient objection' }] },
      vaccineCode: { coding: [{ system: CVX, code: '140', display: 'Influenza, seasonal, injectable, preservative free' }] },
      patient: { reference: 'Patient/42' },
      occurrenceDateTime: '2023-10-02T09:30:00-04:00',
      primarySource: false,
    };
    expectExactly(mapValid(immunizationShape, notDone), {
      resourceType: 'Immunization',
      occurrenceDateTime: '2023-10-02T13:30:00.000+00:00',
      status: 'not-done',
      statusReason: { text: 'patient objection' },
      vaccineCode: { coding: [{ system: CVX, code: '140', display: 'Influenza, seasonal, injectable, preservative free' }] },
      patient: { reference: 'Patient/42' },
      primarySource: false,
    });
  });

  it('maps a completed immunization without reason or primarySource to nulls', () => {
    const completed: FhirResource = {
      resourceType: 'Immunization',
      id: 'im-2',
      status: 'completed',
      vaccineCode: { coding: [{ system: CVX, code: '208', display: 'SARS-COV-2 (COVID-19) vaccine, mRNA' }], text: 'COVID-19 mRNA' },
      patient: { reference: 'Patient/42/_history/2' },
      occurrenceDateTime: '2021-04-11T10:00:00+00:00',
    };
    expectExactly(mapValid(immunizationShape, completed), {
      resourceType: 'Immunization',
      occurrenceDateTime: '2021-04-11T10:00:00.000+00:00',
      status: 'completed',
      statusReason: null,
      vaccineCode: { coding: [{ system: CVX, code: '208', display: 'SARS-COV-2 (COVID-19) vaccine, mRNA' }], text: 'COVID-19 mRNA' },
      patient: { reference: 'Patient/42' },
      primarySource: null,
    });
  });

  it('takes statusReason.text first, and a bare code as the last resort', () => {
    const base: FhirResource = { resourceType: 'Immunization', status: 'not-done', patient: { reference: 'Patient/42' } };
    expect(
      mapValid(immunizationShape, { ...base, statusReason: { text: 'Out of stock', coding: [{ code: 'OSTOCK', display: 'product out of stock' }] } })
        .statusReason,
    ).toEqual({ text: 'Out of stock' });
    expect(mapValid(immunizationShape, { ...base, statusReason: { coding: [{ code: 'IMMUNE' }] } }).statusReason).toEqual({ text: 'IMMUNE' });
  });
});

describe('Condition (2.8)', () => {
  const active: FhirResource = {
    resourceType: 'Condition',
    id: 'c-1',
    meta: META,
    clinicalStatus: { coding: [{ system: CLINICAL, code: 'active' }] },
    verificationStatus: { coding: [{ system: VERIFICATION, code: 'confirmed' }] },
    category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-category', code: 'problem-list-item', display: 'Problem List Item' }] }],
    code: { coding: [{ system: SNOMED, code: '44054006', display: 'Diabetes mellitus type 2' }], text: 'Type 2 diabetes' },
    subject: { reference: 'Patient/42' },
    encounter: { reference: 'Encounter/e-5' },
    onsetDateTime: '2015-06-01T08:00:00-05:00',
    recordedDate: '2015-06-01T08:30:00-05:00',
  };

  it('leaves abatementDateTime out of an active condition', () => {
    const output = mapValid(conditionShape, active);
    expectExactly(output, {
      resourceType: 'Condition',
      id: 'c-1',
      meta: LEGACY_META,
      clinicalStatus: { coding: [{ system: CLINICAL, code: 'active' }] },
      verificationStatus: { coding: [{ system: VERIFICATION, code: 'confirmed' }] },
      category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-category', code: 'problem-list-item', display: 'Problem List Item' }] }],
      code: { coding: [{ system: SNOMED, code: '44054006', display: 'Diabetes mellitus type 2' }] },
      subject: { reference: 'Patient/42', display: 'Ana Rivera' },
      // Timestamps in the old system's form, in the default zone UTC (mappers/legacy-time.ts).
      recordedDate: '2015-06-01T13:30:00.000+00:00',
      onsetDateTime: '2015-06-01T13:00:00.000+00:00',
      encounter: { reference: 'Encounter/e-5' },
    });
    expect(output).not.toHaveProperty('abatementDateTime');
  });

  it('writes abatementDateTime, before encounter, on a resolved condition', () => {
    const resolved = { ...active, clinicalStatus: { coding: [{ system: CLINICAL, code: 'resolved' }] }, abatementDateTime: '2016-01-10T00:00:00Z' };
    const output = mapValid(conditionShape, resolved);
    expect(output.abatementDateTime).toBe('2016-01-10T00:00:00.000+00:00');
    expect(Object.keys(output).slice(-3)).toEqual(['onsetDateTime', 'abatementDateTime', 'encounter']);
  });

  it('writes null for the missing required members', () => {
    const output = mapValid(
      conditionShape,
      { resourceType: 'Condition', id: 'c-2', subject: { reference: 'Patient/42' }, onsetPeriod: { start: '2019-02-03' } },
      none,
    );
    expectExactly(output, {
      resourceType: 'Condition',
      id: 'c-2',
      meta: NO_META,
      clinicalStatus: null,
      verificationStatus: null,
      category: [],
      code: null,
      subject: { reference: 'Patient/42', display: ' ' },
      recordedDate: null,
      onsetDateTime: '2019-02-03T00:00:00.000+00:00',
      encounter: null,
    });
  });
});
