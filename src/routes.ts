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
import type { BundleSearchRoute, ReadRoute, Route, SearchRoute, UpstreamQuery } from './route-types.ts';
import type { LegacyShape } from '../mappers/legacy-shape.ts';

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
/** Coverage has no date search parameter in FHIR R4: the plans compare the dates with its period (plans/type-strategies.ts). */
const coverage: UpstreamQuery = { resourceType: 'Coverage' };
const sdohGoal: UpstreamQuery = { resourceType: 'Goal', dateParam: 'start-date', select: 'sdoh-goal-category', include: withPatient('Goal') };
const specimen: UpstreamQuery = { resourceType: 'Specimen', dateParam: 'collected', include: withPatient('Specimen') };
/** Practitioner has no patient parameter: the plans find a patient's through their encounters (plans/type-strategies.ts). */
const practitioner: UpstreamQuery = { resourceType: 'Practitioner' };
/** Everything the serialized Encounter record needs, in the one round trip of the search. */
const encounter: UpstreamQuery = {
  resourceType: 'Encounter',
  include: ['Encounter:patient', 'Encounter:location', 'Encounter:participant', 'Encounter:diagnosis'],
  revinclude: ['DocumentReference:encounter', 'ServiceRequest:encounter', 'Condition:encounter'],
};

/** A by-id read: every one requires the token (spec section 5: 401 without it). */
function read(name: string, path: string, summary: string, upstream: UpstreamQuery, shape: LegacyShape, params = BY_ID): ReadRoute {
  return { name, kind: 'read', method: 'GET', path, summary, auth: 'token-required', params, upstream, shape, envelope: 'record' };
}

/** The `POST …/_search` form of a GET search: same parameters, query, shape, envelope and policy. */
function postSearchOf(search: SearchRoute, path = `${search.path}/_search`): SearchRoute {
  return { ...search, name: `${search.name}-post`, method: 'POST', path, summary: `${search.summary} (form body)` };
}

/** A Bundle search of one kind. */
function bundleSearch(route: Omit<BundleSearchRoute, 'kind' | 'method' | 'envelope'>): BundleSearchRoute {
  return { kind: 'search', method: 'GET', envelope: 'bundle', ...route };
}

const diagnosticReportSearch = bundleSearch({ name: 'DiagnosticReport.search', path: '/api/DiagnosticReport', summary: 'Search diagnostic reports', auth: 'optional', params: CODED, upstream: diagnosticReport, shape: diagnosticReportSearchEntry, bundleType: 'searchset' });
const carePlanSearch = bundleSearch({ name: 'CarePlan.search', path: '/api/CarePlan', summary: 'Search care plans', auth: 'optional', params: [...DATED, 'category'], upstream: carePlan, shape: carePlanShape, bundleType: 'search set' });
const careTeamSearch = bundleSearch({ name: 'CareTeam.search', path: '/api/CareTeam', summary: 'Search care teams', auth: 'optional', params: [...DATED, 'status'], upstream: careTeam, shape: careTeamShape, bundleType: 'searchset' });
const allergySearch = bundleSearch({ name: 'AllergyIntolerance.search', path: '/api/AllergyIntolerance', summary: 'Search allergies', auth: 'forbidden-without-token', params: DATED, upstream: allergy, shape: allergyIntoleranceShape, bundleType: 'searchset' });
const immunizationSearch = bundleSearch({ name: 'Immunization.search', path: '/api/Immunization', summary: 'Search immunizations', auth: 'forbidden-without-token', params: DATED, upstream: immunization, shape: immunizationShape, bundleType: 'searchset' });
const coverageSearch = bundleSearch({ name: 'Coverage.search', path: '/api/Coverage', summary: 'Search coverage', auth: 'optional', params: DATED, upstream: coverage, shape: coverageShape, bundleType: 'searchset' });

export const ROUTES: readonly Route[] = [
  // DiagnosticReport (spec 2.3)
  diagnosticReportSearch,
  read('DiagnosticReport.read', '/api/DiagnosticReport/:id', 'Read one diagnostic report', diagnosticReport, diagnosticReportRecord),
  postSearchOf(diagnosticReportSearch),

  // CarePlan (spec 2.4): two descriptions; the second (no /api) requires the token.
  carePlanSearch,
  read('CarePlan.read', '/api/CarePlan/:id', 'Read one care plan', carePlan, carePlanShape),
  postSearchOf(carePlanSearch),
  { ...carePlanSearch, name: 'CarePlan.search-second', path: '/CarePlan', summary: 'Search care plans (second description: token required)', auth: 'token-required' },
  read('CarePlan.read-second', '/CarePlan/:id', 'Read one care plan (second description: token required)', carePlan, carePlanShape),
  { ...carePlanSearch, name: 'CarePlan.search-get-search', path: '/CarePlan/_search', summary: 'Care Plan Search (second description: token required)', auth: 'token-required' },

  // CareTeam (spec 2.5)
  careTeamSearch,
  read('CareTeam.read', '/api/CareTeam/:id', 'Read one care team', careTeam, careTeamShape),
  postSearchOf(careTeamSearch),

  // AllergyIntolerance (spec 2.6): the POST path is misspelled in the interface; both spellings are served.
  allergySearch,
  read('AllergyIntolerance.read', '/api/AllergyIntolerance/:id', 'Read one allergy', allergy, allergyIntoleranceShape),
  { ...postSearchOf(allergySearch, '/api/AlleryIntolerance/_search'), name: 'AllergyIntolerance.search-post-misspelled' },
  postSearchOf(allergySearch),

  // Immunization (spec 2.7)
  immunizationSearch,
  read('Immunization.read', '/api/Immunization/:id', 'Read one immunization', immunization, immunizationShape),
  postSearchOf(immunizationSearch),

  // Condition (spec 2.8)
  bundleSearch({ name: 'Condition.search', path: '/Condition', summary: 'Search conditions', auth: 'optional', params: [...DATED, 'category'], upstream: condition, shape: conditionShape, bundleType: 'searchset' }),
  read('Condition.read', '/Condition/:id', 'Read one condition', condition, conditionShape),

  // Encounter (spec 2.9)
  bundleSearch({ name: 'Encounter.search', path: '/Encounter', summary: 'Search encounters', auth: 'optional', params: ['patient'], upstream: encounter, shape: encounterShape, bundleType: 'searchset' }),
  read('Encounter.read', '/Encounter/:id', 'Read one encounter', encounter, encounterShape),

  // Assessment (spec 2.10): survey-category Observations (the site's ASSESSMENT_CATEGORY), a bare array.
  { name: 'Assessments.search', kind: 'search', method: 'GET', path: '/api/Assessments', summary: 'Search assessments (survey observations)', auth: 'forbidden-without-token', params: DATED, upstream: { resourceType: 'Observation', dateParam: 'date', select: 'assessment-category', include: withPatient('Observation') }, shape: assessmentShape, envelope: 'array' },

  // Coverage (spec 2.11)
  coverageSearch,
  read('Coverage.read', '/api/Coverage/:id', 'Read one coverage', coverage, coverageShape),
  postSearchOf(coverageSearch),

  // Observation with Provenance (spec 2.12)
  bundleSearch({ name: 'Observation.search', path: '/Observation', summary: 'Search observations, optionally with their Provenance', auth: 'token-required', params: [...CODED, '_revinclude'], upstream: { resourceType: 'Observation', dateParam: 'date', include: withPatient('Observation') }, shape: observationShape, bundleType: 'search set', includedEntries: { Provenance: provenanceShape } }),

  // Procedure (spec 2.13)
  bundleSearch({ name: 'Procedure.search', path: '/Procedure', summary: 'Search procedures', auth: 'token-required', params: [...DATED, 'date'], upstream: { resourceType: 'Procedure', dateParam: 'date', include: withPatient('Procedure') }, shape: procedureShape, bundleType: 'search set' }),

  // Order (spec 2.14): ServiceRequests with the reports based on them, a bare array.
  { name: 'Orders.search', kind: 'search', method: 'GET', path: '/Orders', summary: 'Search orders', auth: 'forbidden-without-token', params: DATED, upstream: { resourceType: 'ServiceRequest', dateParam: 'authored', revinclude: ['DiagnosticReport:based-on'] }, shape: orderShape, envelope: 'array' },

  // Goal, social-determinants side (spec 2.15): the site's SDOH_GOAL_CATEGORY
  bundleSearch({ name: 'SDOHGoal.search', path: '/api/SDOHGoal', summary: 'Search social-determinants goals', auth: 'optional', params: DATED, upstream: sdohGoal, shape: goalShape, bundleType: 'searchset' }),
  read('SDOHGoal.read', '/api/SDOHGoal/:id', 'Read one social-determinants goal', sdohGoal, goalShape),

  // Specimen (spec 2.16)
  bundleSearch({ name: 'Specimen.search', path: '/api/Specimen', summary: 'Search specimens', auth: 'optional', params: DATED, upstream: specimen, shape: specimenShape, bundleType: 'searchset' }),
  read('Specimen.read', '/api/Specimen/:id', 'Read one specimen', specimen, specimenShape),

  // Practitioner (spec 2.17): directory data, no owning patient.
  bundleSearch({ name: 'Practitioner.search', path: '/Practitioner', summary: 'Search practitioners', auth: 'optional', params: ['patient'], upstream: practitioner, shape: practitionerShape, bundleType: 'searchset' }),
  read('Practitioner.read', '/Practitioner/:id', 'Read one practitioner', { resourceType: 'Practitioner' }, practitionerShape, []),
];
