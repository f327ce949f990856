/**
 * Code-system URLs, US Core profile URLs and small helpers to build codings.
 * Kept apart from the code tables so builders can import just the plumbing.
 */
import type { CodeableConcept, Coding } from '@medplum/fhirtypes';

export const SYSTEM = {
  loinc: 'http://loinc.org',
  snomed: 'http://snomed.info/sct',
  cvx: 'http://hl7.org/fhir/sid/cvx',
  icd10cm: 'http://hl7.org/fhir/sid/icd-10-cm',
  ucum: 'http://unitsofmeasure.org',
  npi: 'http://hl7.org/fhir/sid/us-npi',
  actCode: 'http://terminology.hl7.org/CodeSystem/v3-ActCode',
  actReason: 'http://terminology.hl7.org/CodeSystem/v3-ActReason',
  participationType: 'http://terminology.hl7.org/CodeSystem/v3-ParticipationType',
  maritalStatus: 'http://terminology.hl7.org/CodeSystem/v3-MaritalStatus',
  identifierType: 'http://terminology.hl7.org/CodeSystem/v2-0203',
  diagnosticServiceSection: 'http://terminology.hl7.org/CodeSystem/v2-0074',
  dischargeDisposition: 'http://terminology.hl7.org/CodeSystem/discharge-disposition',
  observationCategory: 'http://terminology.hl7.org/CodeSystem/observation-category',
  observationInterpretation: 'http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation',
  conditionClinical: 'http://terminology.hl7.org/CodeSystem/condition-clinical',
  conditionVerification: 'http://terminology.hl7.org/CodeSystem/condition-ver-status',
  conditionCategory: 'http://terminology.hl7.org/CodeSystem/condition-category',
  usCoreConditionCategory: 'http://hl7.org/fhir/us/core/CodeSystem/condition-category',
  usCoreCategory: 'http://hl7.org/fhir/us/core/CodeSystem/us-core-category',
  usCoreDocumentCategory: 'http://hl7.org/fhir/us/core/CodeSystem/us-core-documentreference-category',
  carePlanCategory: 'http://hl7.org/fhir/us/core/CodeSystem/careplan-category',
  allergyClinical: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical',
  allergyVerification: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-verification',
  provenanceParticipantType: 'http://terminology.hl7.org/CodeSystem/provenance-participant-type',
  organizationType: 'http://terminology.hl7.org/CodeSystem/organization-type',
  coverageClass: 'http://terminology.hl7.org/CodeSystem/coverage-class',
  subscriberRelationship: 'http://terminology.hl7.org/CodeSystem/subscriber-relationship',
  nuccTaxonomy: 'http://nucc.org/provider-taxonomy',
  // Local identifier namespaces: example OIDs under HL7's documentation arc 2.16.840.1.113883.19.
  mrn: 'urn:oid:2.16.840.1.113883.19.5.1',
  encounterId: 'urn:oid:2.16.840.1.113883.19.5.2',
  accession: 'urn:oid:2.16.840.1.113883.19.5.3',
  memberId: 'urn:oid:2.16.840.1.113883.19.5.4',
  orderId: 'urn:oid:2.16.840.1.113883.19.5.5',
} as const;

const US_CORE = 'http://hl7.org/fhir/us/core/StructureDefinition/';

export const PROFILE = {
  patient: `${US_CORE}us-core-patient`,
  practitioner: `${US_CORE}us-core-practitioner`,
  organization: `${US_CORE}us-core-organization`,
  location: `${US_CORE}us-core-location`,
  encounter: `${US_CORE}us-core-encounter`,
  condition: `${US_CORE}us-core-condition`,
  procedure: `${US_CORE}us-core-procedure`,
  immunization: `${US_CORE}us-core-immunization`,
  allergy: `${US_CORE}us-core-allergyintolerance`,
  carePlan: `${US_CORE}us-core-careplan`,
  careTeam: `${US_CORE}us-core-careteam`,
  goal: `${US_CORE}us-core-goal`,
  coverage: `${US_CORE}us-core-coverage`,
  provenance: `${US_CORE}us-core-provenance`,
  documentReference: `${US_CORE}us-core-documentreference`,
  serviceRequest: `${US_CORE}us-core-servicerequest`,
  specimen: `${US_CORE}us-core-specimen`,
  reportLab: `${US_CORE}us-core-diagnosticreport-lab`,
  reportNote: `${US_CORE}us-core-diagnosticreport-note`,
  observationLab: `${US_CORE}us-core-observation-lab`,
  smokingStatus: `${US_CORE}us-core-smokingstatus`,
  screeningAssessment: `${US_CORE}us-core-observation-screening-assessment`,
  vitalSigns: 'http://hl7.org/fhir/StructureDefinition/vitalsigns',
} as const;

/** A code as stored in the tables below: system, code and display. */
export interface Code {
  readonly system: string;
  readonly code: string;
  readonly display: string;
}

export const code = (system: string, codeValue: string, display: string): Code => ({ system, code: codeValue, display });
export const snomed = (codeValue: string, display: string): Code => code(SYSTEM.snomed, codeValue, display);
export const loinc = (codeValue: string, display: string): Code => code(SYSTEM.loinc, codeValue, display);

/** Fresh Coding object (never shared between resources, so later edits cannot leak). */
export function coding(c: Code): Coding {
  return { system: c.system, code: c.code, display: c.display };
}

/** CodeableConcept with one coding; text defaults to the display. */
export function concept(c: Code, text: string = c.display): CodeableConcept {
  return { coding: [coding(c)], text };
}

/** CodeableConcept with a bare system+code coding (no display), as category/status fields often are. */
export function plainConcept(system: string, codeValue: string): CodeableConcept {
  return { coding: [{ system, code: codeValue }] };
}
