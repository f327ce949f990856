/**
 * The route table: the single list of legacy operations (spec section 4.1). Each entry names the
 * upstream FHIR query, the mapper, the envelope and the auth policy; src/app.ts serves each one at
 * its documented path and at the same path with or without `/api` (docs/decisions.md, "Paths").
 * The per-kind constants below hold what a kind's search, by-id read and POST `_search` share.
 */
import { allergyIntoleranceShape } from '../mappers/allergy-intolerance.mapper.ts';
import { assessmentShape } from '../mappers/assessment.mapper.ts';
import { carePlanShape } from '../mappers/care-plan.mapper.ts';
import { careTeamShape } from '../mappers/care-team.mapper.ts';
import { conditionShape } from '../mappers/condition.mapper.ts';
import { coverageShape } from '../mappers/coverage.mapper.ts';
import { diagnosticReportRecord, diagnosticReportSearchEntry } from '../mappers/diagnostic-report.mapper.ts';
import { encounterShape } from '../mappers/encounter.mapper.ts';
import { goalShape } from '../mappers/goal.mapper.ts';
import { immunizationShape } from '../mappers/immunization.mapper.ts';
import { observationShape } from '../mappers/observation.mapper.ts';
import { orderShape } from '../mappers/order.mapper.ts';
import { practitionerShape } from '../mappers/practitioner.mapper.ts';
import { procedureShape } from '../mappers/procedure.mapper.ts';
import { provenanceShape } from '../mappers/provenance.mapper.ts';
import { specimenShape } from '../mappers/specimen.mapper.ts';
import type { ParamName } from './params.ts';
import type { Route, UpstreamQuery } from './route-types.ts';

const DATED: readonly ParamName[] = ['patient', 'start_date', 'end_date'];
const CODED: readonly ParamName[] = [...DATED, 'code', 'category', 'date'];
const BY_ID: readonly ParamName[] = ['patient'];

/** The patient's name is `subject.display` in most legacy shapes: the Patient comes in the same round trip. */
const withPatient = (type: string): readonly string[] => [`${type}:patient`];

const diagnosticReport: UpstreamQuery = { resourceType: 'DiagnosticReport', dateParam: 'date' };
const carePlan: UpstreamQuery = { resourceType: 'CarePlan', dateParam: 'date', include: withPatient('CarePlan') };
const careTeam: UpstreamQuery = { resourceType: 'CareTeam', dateParam: 'date', include: [...withPatient('CareTeam'), 'CareTeam:participant'] };
const allergy: UpstreamQuery = { resourceType: 'AllergyIntolerance', dateParam: 'date', include: withPatient('AllergyIntolerance') };
const immunization: UpstreamQuery = { resourceType: 'Immunization', dateParam: 'date' };
const condition: UpstreamQuery = { resourceType: 'Condition', dateParam: 'onset-date', include: withPatient('Condition') };
/** Coverage has no date search parameter in FHIR R4: the dates are compared with its period here. */
const coverage: UpstreamQuery = { resourceType: 'Coverage', datePeriod: 'period' };
const sdohGoal: UpstreamQuery = { resourceType: 'Goal', dateParam: 'start-date', fixed: [['category', 'sdoh']], include: withPatient('Goal') };
const specimen: UpstreamQuery = { resourceType: 'Specimen', dateParam: 'collected', include: withPatient('Specimen') };
/** A practitioner "of a patient" is one who took part in the patient's encounters. */
const practitioner: UpstreamQuery = { resourceType: 'Practitioner', patientScope: { resourceType: 'Encounter', include: 'Encounter:participant' } };
/** Everything the serialized Encounter record needs, in the one round trip of the search. */
const encounter: UpstreamQuery = {
  resourceType: 'Encounter',
  include: ['Encounter:patient', 'Encounter:location', 'Encounter:participant', 'Encounter:diagnosis'],
  revinclude: ['DocumentReference:encounter', 'ServiceRequest:encounter', 'Condition:encounter'],
};

export const ROUTES: readonly Route[] = [
  // DiagnosticReport (spec 2.3)
  { name: 'DiagnosticReport.search', kind: 'search', method: 'GET', path: '/api/DiagnosticReport', summary: 'Search diagnostic reports', auth: 'optional', params: CODED, upstream: diagnosticReport, shape: diagnosticReportSearchEntry, envelope: 'bundle', bundleType: 'searchset' },
  { name: 'DiagnosticReport.read', kind: 'read', method: 'GET', path: '/api/DiagnosticReport/:id', summary: 'Read one diagnostic report', auth: 'token-required', params: BY_ID, upstream: diagnosticReport, shape: diagnosticReportRecord, envelope: 'record' },
  { name: 'DiagnosticReport.search-post', kind: 'search', method: 'POST', path: '/api/DiagnosticReport/_search', summary: 'Search diagnostic reports (form body)', auth: 'optional', params: CODED, upstream: diagnosticReport, shape: diagnosticReportSearchEntry, envelope: 'bundle', bundleType: 'searchset' },

  // CarePlan (spec 2.4): two descriptions; the second (no /api) requires the token.
  { name: 'CarePlan.search', kind: 'search', method: 'GET', path: '/api/CarePlan', summary: 'Search care plans', auth: 'optional', params: [...DATED, 'category'], upstream: carePlan, shape: carePlanShape, envelope: 'bundle', bundleType: 'search set' },
  { name: 'CarePlan.read', kind: 'read', method: 'GET', path: '/api/CarePlan/:id', summary: 'Read one care plan', auth: 'token-required', params: BY_ID, upstream: carePlan, shape: carePlanShape, envelope: 'record' },
  { name: 'CarePlan.search-post', kind: 'search', method: 'POST', path: '/api/CarePlan/_search', summary: 'Search care plans (form body)', auth: 'optional', params: [...DATED, 'category'], upstream: carePlan, shape: carePlanShape, envelope: 'bundle', bundleType: 'search set' },
  { name: 'CarePlan.search-second', kind: 'search', method: 'GET', path: '/CarePlan', summary: 'Search care plans (second description: token required)', auth: 'token-required', params: [...DATED, 'category'], upstream: carePlan, shape: carePlanShape, envelope: 'bundle', bundleType: 'search set' },
  { name: 'CarePlan.read-second', kind: 'read', method: 'GET', path: '/CarePlan/:id', summary: 'Read one care plan (second description: token required)', auth: 'token-required', params: BY_ID, upstream: carePlan, shape: carePlanShape, envelope: 'record' },
  { name: 'CarePlan.search-get-search', kind: 'search', method: 'GET', path: '/CarePlan/_search', summary: 'Care Plan Search (second description: token required)', auth: 'token-required', params: [...DATED, 'category'], upstream: carePlan, shape: carePlanShape, envelope: 'bundle', bundleType: 'search set' },

  // CareTeam (spec 2.5)
  { name: 'CareTeam.search', kind: 'search', method: 'GET', path: '/api/CareTeam', summary: 'Search care teams', auth: 'optional', params: [...DATED, 'status'], upstream: careTeam, shape: careTeamShape, envelope: 'bundle', bundleType: 'searchset' },
  { name: 'CareTeam.read', kind: 'read', method: 'GET', path: '/api/CareTeam/:id', summary: 'Read one care team', auth: 'token-required', params: BY_ID, upstream: careTeam, shape: careTeamShape, envelope: 'record' },
  { name: 'CareTeam.search-post', kind: 'search', method: 'POST', path: '/api/CareTeam/_search', summary: 'Search care teams (form body)', auth: 'optional', params: [...DATED, 'status'], upstream: careTeam, shape: careTeamShape, envelope: 'bundle', bundleType: 'searchset' },

  // AllergyIntolerance (spec 2.6): the POST path is misspelled in the interface; both spellings are served.
  { name: 'AllergyIntolerance.search', kind: 'search', method: 'GET', path: '/api/AllergyIntolerance', summary: 'Search allergies', auth: 'forbidden-without-token', params: DATED, upstream: allergy, shape: allergyIntoleranceShape, envelope: 'bundle', bundleType: 'searchset' },
  { name: 'AllergyIntolerance.read', kind: 'read', method: 'GET', path: '/api/AllergyIntolerance/:id', summary: 'Read one allergy', auth: 'token-required', params: BY_ID, upstream: allergy, shape: allergyIntoleranceShape, envelope: 'record' },
  { name: 'AllergyIntolerance.search-post-misspelled', kind: 'search', method: 'POST', path: '/api/AlleryIntolerance/_search', summary: 'Search allergies (form body; path spelled as in the interface)', auth: 'forbidden-without-token', params: DATED, upstream: allergy, shape: allergyIntoleranceShape, envelope: 'bundle', bundleType: 'searchset' },
  { name: 'AllergyIntolerance.search-post', kind: 'search', method: 'POST', path: '/api/AllergyIntolerance/_search', summary: 'Search allergies (form body)', auth: 'forbidden-without-token', params: DATED, upstream: allergy, shape: allergyIntoleranceShape, envelope: 'bundle', bundleType: 'searchset' },

  // Immunization (spec 2.7)
  { name: 'Immunization.search', kind: 'search', method: 'GET', path: '/api/Immunization', summary: 'Search immunizations', auth: 'forbidden-without-token', params: DATED, upstream: immunization, shape: immunizationShape, envelope: 'bundle', bundleType: 'searchset' },
  { name: 'Immunization.read', kind: 'read', method: 'GET', path: '/api/Immunization/:id', summary: 'Read one immunization', auth: 'token-required', params: BY_ID, upstream: immunization, shape: immunizationShape, envelope: 'record' },
  { name: 'Immunization.search-post', kind: 'search', method: 'POST', path: '/api/Immunization/_search', summary: 'Search immunizations (form body)', auth: 'forbidden-without-token', params: DATED, upstream: immunization, shape: immunizationShape, envelope: 'bundle', bundleType: 'searchset' },

  // Condition (spec 2.8)
  { name: 'Condition.search', kind: 'search', method: 'GET', path: '/Condition', summary: 'Search conditions', auth: 'optional', params: [...DATED, 'category'], upstream: condition, shape: conditionShape, envelope: 'bundle', bundleType: 'searchset' },
  { name: 'Condition.read', kind: 'read', method: 'GET', path: '/Condition/:id', summary: 'Read one condition', auth: 'token-required', params: BY_ID, upstream: condition, shape: conditionShape, envelope: 'record' },

  // Encounter (spec 2.9)
  { name: 'Encounter.search', kind: 'search', method: 'GET', path: '/Encounter', summary: 'Search encounters', auth: 'optional', params: ['patient'], upstream: encounter, shape: encounterShape, envelope: 'bundle', bundleType: 'searchset' },
  { name: 'Encounter.read', kind: 'read', method: 'GET', path: '/Encounter/:id', summary: 'Read one encounter', auth: 'token-required', params: BY_ID, upstream: encounter, shape: encounterShape, envelope: 'record' },

  // Assessment (spec 2.10): survey-category Observations, a bare array.
  { name: 'Assessments.search', kind: 'search', method: 'GET', path: '/api/Assessments', summary: 'Search assessments (survey observations)', auth: 'forbidden-without-token', params: DATED, upstream: { resourceType: 'Observation', dateParam: 'date', fixed: [['category', 'survey']], include: withPatient('Observation') }, shape: assessmentShape, envelope: 'array' },

  // Coverage (spec 2.11)
  { name: 'Coverage.search', kind: 'search', method: 'GET', path: '/api/Coverage', summary: 'Search coverage', auth: 'optional', params: DATED, upstream: coverage, shape: coverageShape, envelope: 'bundle', bundleType: 'searchset' },
  { name: 'Coverage.read', kind: 'read', method: 'GET', path: '/api/Coverage/:id', summary: 'Read one coverage', auth: 'token-required', params: BY_ID, upstream: coverage, shape: coverageShape, envelope: 'record' },
  { name: 'Coverage.search-post', kind: 'search', method: 'POST', path: '/api/Coverage/_search', summary: 'Search coverage (form body)', auth: 'optional', params: DATED, upstream: coverage, shape: coverageShape, envelope: 'bundle', bundleType: 'searchset' },

  // Observation with Provenance (spec 2.12)
  { name: 'Observation.search', kind: 'search', method: 'GET', path: '/Observation', summary: 'Search observations, optionally with their Provenance', auth: 'token-required', params: [...CODED, '_revinclude'], upstream: { resourceType: 'Observation', dateParam: 'date', include: withPatient('Observation') }, shape: observationShape, envelope: 'bundle', bundleType: 'search set', includedEntries: { Provenance: provenanceShape } },

  // Procedure (spec 2.13)
  { name: 'Procedure.search', kind: 'search', method: 'GET', path: '/Procedure', summary: 'Search procedures', auth: 'token-required', params: [...DATED, 'date'], upstream: { resourceType: 'Procedure', dateParam: 'date', include: withPatient('Procedure') }, shape: procedureShape, envelope: 'bundle', bundleType: 'search set' },

  // Order (spec 2.14): ServiceRequests with the reports based on them, a bare array.
  { name: 'Orders.search', kind: 'search', method: 'GET', path: '/Orders', summary: 'Search orders', auth: 'forbidden-without-token', params: DATED, upstream: { resourceType: 'ServiceRequest', dateParam: 'authored', revinclude: ['DiagnosticReport:based-on'] }, shape: orderShape, envelope: 'array' },

  // Goal, social-determinants side (spec 2.15)
  { name: 'SDOHGoal.search', kind: 'search', method: 'GET', path: '/api/SDOHGoal', summary: 'Search social-determinants goals', auth: 'optional', params: DATED, upstream: sdohGoal, shape: goalShape, envelope: 'bundle', bundleType: 'searchset' },
  { name: 'SDOHGoal.read', kind: 'read', method: 'GET', path: '/api/SDOHGoal/:id', summary: 'Read one social-determinants goal', auth: 'token-required', params: BY_ID, upstream: sdohGoal, shape: goalShape, envelope: 'record' },

  // Specimen (spec 2.16)
  { name: 'Specimen.search', kind: 'search', method: 'GET', path: '/api/Specimen', summary: 'Search specimens', auth: 'optional', params: DATED, upstream: specimen, shape: specimenShape, envelope: 'bundle', bundleType: 'searchset' },
  { name: 'Specimen.read', kind: 'read', method: 'GET', path: '/api/Specimen/:id', summary: 'Read one specimen', auth: 'token-required', params: BY_ID, upstream: specimen, shape: specimenShape, envelope: 'record' },

  // Practitioner (spec 2.17)
  { name: 'Practitioner.search', kind: 'search', method: 'GET', path: '/Practitioner', summary: 'Search practitioners', auth: 'optional', params: ['patient'], upstream: practitioner, shape: practitionerShape, envelope: 'bundle', bundleType: 'searchset' },
  { name: 'Practitioner.read', kind: 'read', method: 'GET', path: '/Practitioner/:id', summary: 'Read one practitioner', auth: 'token-required', params: [], upstream: { resourceType: 'Practitioner' }, shape: practitionerShape, envelope: 'record' },
];
