/**
 * Shared FHIR fixtures and assertions for the mapper unit tests: a Patient, a Practitioner and an
 * Organization that included resources name, and a check of exact output and schema at once.
 */
import * as v from 'valibot';
import { expect } from 'vitest';
import { createMapContext, type LegacyShape } from '../../mappers/legacy-shape.ts';
import type { FhirResource } from '../../src/upstream/fhir-client.ts';

export const SNOMED = 'http://snomed.info/sct';
export const CVX = 'http://hl7.org/fhir/sid/cvx';
export const CLINICAL = 'http://terminology.hl7.org/CodeSystem/condition-clinical';
export const VERIFICATION = 'http://terminology.hl7.org/CodeSystem/condition-ver-status';
export const ALLERGY_CLINICAL = 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical';
export const ALLERGY_VERIFICATION = 'http://terminology.hl7.org/CodeSystem/allergyintolerance-verification';
export const META = { versionId: '3', lastUpdated: '2024-03-05T10:20:30Z', profile: ['http://hl7.org/fhir/us/core/StructureDefinition/x'] };
export const LEGACY_META = {
  versionId: '3',
  lastUpdated: '2024-03-05T10:20:30.000+00:00',
  source: null,
  profile: ['http://hl7.org/fhir/us/core/StructureDefinition/x'],
};
/** The legacy `meta` of a record the upstream wrote none for: every member shown, null or []. */
export const NO_META = { versionId: null, lastUpdated: null, source: null, profile: [] };

export const patient: FhirResource = { resourceType: 'Patient', id: '42', name: [{ use: 'official', family: 'Rivera', given: ['Ana', 'M'] }] };
export const practitioner: FhirResource = { resourceType: 'Practitioner', id: 'pr-7', name: [{ family: 'Okafor', given: ['Chidi'], prefix: ['Dr.'] }] };
export const organization: FhirResource = { resourceType: 'Organization', id: 'org-1', name: 'Riverside Clinic' };
export const context = createMapContext([patient, practitioner, organization]);
export const none = createMapContext([]);

/** Maps and checks the output against the shape's schema (every case of every shape). */
export function mapValid(shape: LegacyShape, resource: FhirResource, mapContext = context): Record<string, unknown> {
  const output = shape.map(resource, mapContext);
  const result = v.safeParse(shape.schema, output);
  expect(result.success, JSON.stringify(result.issues?.map((issue) => [issue.path?.map((p) => p.key), issue.message]))).toBe(true);
  return output;
}

/** Deep equality plus the top-level key order (the expected objects are written in the spec's order). */
export function expectExactly(output: Record<string, unknown>, expected: Record<string, unknown>): void {
  expect(output).toEqual(expected);
  expect(Object.keys(output)).toEqual(Object.keys(expected));
}
