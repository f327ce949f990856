/**
 * Unit tests of the Coverage, Procedure, Goal, Specimen and Practitioner mappers (spec 2.11-2.17):
 * exact outputs, so key presence and order are checked, and every output against its schema.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { coverageShape } from '../mappers/coverage.mapper.ts';
import { procedureShape } from '../mappers/procedure.mapper.ts';
import { goalShape } from '../mappers/goal.mapper.ts';
import { specimenShape } from '../mappers/specimen.mapper.ts';
import { practitionerShape } from '../mappers/practitioner.mapper.ts';
import { createMapContext } from '../mappers/legacy-shape.ts';
import { createLegacyTime } from '../mappers/legacy-time.ts';
import type { FhirResource } from '../src/upstream/fhir-client.ts';
import { LEGACY_META, META, NO_META, SNOMED, expectExactly, mapValid, none, patient } from './support/mapper-fixtures.ts';

describe('Coverage (2.11)', () => {
  it('passes the FHIR values through, references normalized, class as Class', () => {
    const coverage: FhirResource = {
      resourceType: 'Coverage',
      id: 'cov-1',
      meta: META,
      identifier: [{ system: 'https://payer.example.com/member', value: 'M123', assigner: { reference: 'https://fhir.example.org/fhir/Organization/org-1' } }],
      status: 'active',
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'HIP', display: 'health insurance plan policy' }] },
      subscriber: { reference: 'Patient/42/_history/1', display: 'Ana Rivera' },
      subscriberId: 'SUB-99',
      beneficiary: { reference: 'Patient/42' },
      relationship: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/subscriber-relationship', code: 'self' }] },
      period: { start: '2024-01-01' },
      payor: [{ reference: 'Organization/org-1' }, { display: 'Self-pay' }],
      class: [{ type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/coverage-class', code: 'group' }] }, value: 'G-17', name: 'Employer group' }],
    };
    expectExactly(mapValid(coverageShape, coverage), {
      resourceType: 'Coverage',
      id: 'cov-1',
      identifier: [{ system: 'https://payer.example.com/member', value: 'M123', assigner: { reference: 'Organization/org-1' } }],
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'HIP', display: 'health insurance plan policy' }] },
      status: 'active',
      subscriber: { reference: 'Patient/42', display: 'Ana Rivera' },
      beneficiary: { reference: 'Patient/42' },
      relationship: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/subscriber-relationship', code: 'self' }] },
      subscriberId: 'SUB-99',
      period: { start: '2024-01-01' },
      payor: [{ reference: 'Organization/org-1' }, { display: 'Self-pay' }],
      Class: [{ type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/coverage-class', code: 'group' }] }, value: 'G-17', name: 'Employer group' }],
    });
  });

  it('writes null and [] for what a minimal Coverage lacks', () => {
    const output = mapValid(coverageShape, {
      resourceType: 'Coverage',
      id: 'cov-2',
      status: 'active',
      beneficiary: { reference: 'Patient/42' },
      payor: [{ reference: 'Patient/42' }],
    });
    expectExactly(output, {
      resourceType: 'Coverage',
      id: 'cov-2',
      identifier: [],
      type: null,
      status: 'active',
      subscriber: null,
      beneficiary: { reference: 'Patient/42' },
      relationship: null,
      subscriberId: null,
      period: null,
      payor: [{ reference: 'Patient/42' }],
      Class: [],
    });
  });
});

describe('Procedure (2.13)', () => {
  const procedure: FhirResource = {
    resourceType: 'Procedure',
    id: 'p-1',
    meta: META,
    status: 'completed',
    code: { coding: [{ system: SNOMED, code: '73761001', display: 'Colonoscopy' }], text: 'Colonoscopy' },
    subject: { reference: 'Patient/42' },
    performedPeriod: { start: '2022-09-14T23:30:00-04:00', end: '2022-09-15T00:15:00-04:00' },
  };

  it("writes performedPeriod as the calendar dates of the old system's time zone", () => {
    // 23:30 at -04:00 is the next day in UTC, the default zone.
    expectExactly(mapValid(procedureShape, procedure), {
      resourceType: 'Procedure',
      id: 'p-1',
      meta: LEGACY_META,
      status: 'completed',
      code: { coding: [{ system: SNOMED, code: '73761001', display: 'Colonoscopy' }] },
      subject: { reference: 'Patient/42', display: 'Ana Rivera' },
      performedPeriod: { start: '2022-09-15', end: '2022-09-15' },
    });
    const eastern = createMapContext([patient], createLegacyTime('America/New_York'));
    expect(mapValid(procedureShape, procedure, eastern).performedPeriod).toEqual({ start: '2022-09-14', end: '2022-09-15' });
  });

  it('uses performedDateTime as both ends, and nulls when nothing is known', () => {
    const { performedPeriod: _, ...rest } = procedure;
    expect(mapValid(procedureShape, { ...rest, performedDateTime: '2020-02-29T10:00:00Z' }).performedPeriod).toEqual({
      start: '2020-02-29',
      end: '2020-02-29',
    });
    expect(mapValid(procedureShape, rest).performedPeriod).toEqual({ start: null, end: null });
    expect(mapValid(procedureShape, { ...rest, performedPeriod: { start: '2021-05-01' } }).performedPeriod).toEqual({ start: '2021-05-01', end: null });
  });
});

describe('Goal (2.15)', () => {
  it('maps a social-determinants goal, target as FHIR writes it', () => {
    const goal: FhirResource = {
      resourceType: 'Goal',
      id: 'g-1',
      meta: META,
      lifecycleStatus: 'active',
      achievementStatus: { coding: [{ code: 'in-progress' }] },
      description: { coding: [{ system: SNOMED, code: '1078229009', display: 'Food security' }], text: 'Food security' },
      subject: { reference: 'Patient/42' },
      target: [
        { measure: { coding: [{ system: 'http://loinc.org', code: '88124-3' }] }, detailCodeableConcept: { text: 'Food secure' }, dueDate: '2024-12-31' },
      ],
    };
    expectExactly(mapValid(goalShape, goal), {
      resourceType: 'Goal',
      id: 'g-1',
      lifecycleStatus: 'active',
      description: { coding: [{ system: SNOMED, code: '1078229009', display: 'Food security' }], text: 'Food security' },
      subject: { reference: 'Patient/42', display: 'Ana Rivera' },
      target: [
        { measure: { coding: [{ system: 'http://loinc.org', code: '88124-3' }] }, detailCodeableConcept: { text: 'Food secure' }, dueDate: '2024-12-31' },
      ],
    });
  });

  it('writes [] for no target and keeps a text-only description', () => {
    const output = mapValid(
      goalShape,
      { resourceType: 'Goal', id: 'g-2', lifecycleStatus: 'proposed', description: { text: 'Find stable housing' }, subject: { reference: 'Patient/42' } },
      none,
    );
    expectExactly(output, {
      resourceType: 'Goal',
      id: 'g-2',
      lifecycleStatus: 'proposed',
      description: { coding: [], text: 'Find stable housing' },
      subject: { reference: 'Patient/42', display: ' ' },
      target: [],
    });
  });
});

describe('Specimen (2.16)', () => {
  it('passes type, collection and container through, references normalized', () => {
    const specimen: FhirResource = {
      resourceType: 'Specimen',
      id: 's-1',
      meta: META,
      status: 'available',
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0487', code: 'BLD', display: 'Whole blood' }] },
      subject: { reference: 'http://fhir.example.org/fhir/Patient/42', display: 'Ana Rivera' },
      collection: { collector: { reference: 'Practitioner/pr-7' }, collectedDateTime: '2024-02-01T07:45:00-05:00', quantity: { value: 5, unit: 'mL' } },
      container: [{ type: { text: 'Lavender top tube' }, capacity: { value: 6, unit: 'mL' } }],
    };
    expectExactly(mapValid(specimenShape, specimen), {
      resourceType: 'Specimen',
      id: 's-1',
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0487', code: 'BLD', display: 'Whole blood' }] },
      subject: { reference: 'Patient/42', display: 'Ana Rivera' },
      // A dateTime passed through with a time of day: the old system's timestamp form (default zone UTC).
      collection: { collector: { reference: 'Practitioner/pr-7' }, collectedDateTime: '2024-02-01T12:45:00.000+00:00', quantity: { value: 5, unit: 'mL' } },
      container: [{ type: { text: 'Lavender top tube' }, capacity: { value: 6, unit: 'mL' } }],
    });
  });

  it('writes null and [] for a specimen without collection or container', () => {
    const output = mapValid(specimenShape, { resourceType: 'Specimen', id: 's-2', subject: { reference: 'Patient/42' } }, none);
    expectExactly(output, {
      resourceType: 'Specimen',
      id: 's-2',
      type: null,
      subject: { reference: 'Patient/42', display: ' ' },
      collection: null,
      container: [],
    });
  });

  it('fails the schema for a FHIR value of the wrong type', () => {
    const output = specimenShape.map({ resourceType: 'Specimen', id: 's-3', collection: { quantity: { value: 'five' } } }, none);
    expect(v.safeParse(specimenShape.schema, output).success).toBe(false);
  });
});

describe('Practitioner (2.17)', () => {
  it('keeps the listed members, address period start as a date', () => {
    const doctor: FhirResource = {
      resourceType: 'Practitioner',
      id: 'pr-7',
      meta: META,
      active: true,
      identifier: [{ use: 'official', system: 'http://hl7.org/fhir/sid/us-npi', value: '9999999999' }],
      name: [{ use: 'official', family: 'Okafor', given: ['Chidi', 'A'], prefix: ['Dr.'] }],
      telecom: [
        { system: 'phone', value: '555-0100', use: 'work' },
        { system: 'email', value: 'c.okafor@example.org' },
      ],
      address: [
        { line: ['1 Main St', 'Suite 2'], city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US', period: { start: '2019-07-01T00:00:00Z' } },
        { city: 'Chicago', period: { end: '2018-12-31' } },
      ],
    };
    expectExactly(mapValid(practitionerShape, doctor), {
      resourceType: 'Practitioner',
      id: 'pr-7',
      meta: LEGACY_META,
      identifier: [{ system: 'http://hl7.org/fhir/sid/us-npi', value: '9999999999' }],
      name: [{ family: 'Okafor', given: ['Chidi', 'A'] }],
      telecom: [
        { system: 'phone', value: '555-0100', use: 'work' },
        { system: 'email', value: 'c.okafor@example.org', use: null },
      ],
      address: [
        { line: ['1 Main St', 'Suite 2'], postalCode: '62701', city: 'Springfield', state: 'IL', country: 'US', period: { start: '2019-07-01' } },
        { line: [], postalCode: null, city: 'Chicago', state: null, country: null, period: null },
      ],
    });
  });

  it('writes [] for every list the upstream lacks', () => {
    expectExactly(mapValid(practitionerShape, { resourceType: 'Practitioner', id: 'pr-8', name: [{ text: 'Nurse Joy' }] }), {
      resourceType: 'Practitioner',
      id: 'pr-8',
      meta: NO_META,
      identifier: [],
      name: [{ family: null, given: [] }],
      telecom: [],
      address: [],
    });
  });
});
