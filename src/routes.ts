/**
 * The route table: the single list of legacy operations (spec section 4.1), one row each: what it
 * is (a search, a by-id read, the `POST …/_search` form of a search), its name, its path and the
 * kind of record it serves (src/route-kinds.ts: upstream query, shape, parameters, policy,
 * envelope), with what differs from the kind's defaults. src/app.ts serves each one at its
 * documented path and at the same path with or without `/api` (docs/decisions.md, "Paths").
 */
import type { RecordKind } from './route-kinds.ts';
import {
  ALLERGY,
  ASSESSMENT,
  CARE_PLAN,
  CARE_TEAM,
  CONDITION,
  COVERAGE,
  DIAGNOSTIC_REPORT,
  ENCOUNTER,
  IMMUNIZATION,
  OBSERVATION,
  ORDER,
  PRACTITIONER,
  PROCEDURE,
  SDOH_GOAL,
  SPECIMEN,
} from './route-kinds.ts';
import type { ParamName } from './params.ts';
import type { AuthPolicy, ReadRoute, Route, SearchRoute } from './route-types.ts';

/** What a row may change from its kind's defaults. */
interface Differences {
  auth?: AuthPolicy;
  params?: readonly ParamName[];
  /** Said after the summary, e.g. `second description: token required`. */
  note?: string;
  summary?: string;
}

const withNote = (summary: string, note: string | undefined) => (note ? `${summary} (${note})` : summary);

function search(name: string, path: string, kind: RecordKind, differences: Differences = {}): SearchRoute {
  const common = {
    name,
    kind: 'search',
    method: 'GET',
    path,
    auth: differences.auth ?? kind.auth,
    params: differences.params ?? kind.params,
    summary: differences.summary ?? withNote(`Search ${kind.records}`, differences.note),
    upstream: kind.upstream,
    shape: kind.shape,
    ...(kind.includedEntries ? { includedEntries: kind.includedEntries } : {}),
  } as const;
  return kind.envelope === 'array' ? { ...common, envelope: 'array' } : { ...common, envelope: 'bundle', bundleType: kind.envelope };
}

/** A by-id read: every one requires the token (spec section 5: 401 without it); `patient` is its one parameter. */
function read(name: string, path: string, kind: RecordKind, differences: Differences = {}): ReadRoute {
  return {
    name,
    kind: 'read',
    method: 'GET',
    path,
    summary: withNote(`Read one ${kind.record}`, differences.note),
    auth: 'token-required',
    params: differences.params ?? ['patient'],
    upstream: kind.upstream,
    shape: kind.recordShape ?? kind.shape,
    envelope: 'record',
  };
}

/** The `POST …/_search` form of a kind's search: same parameters, query, shape, envelope and policy. */
function post(name: string, path: string, kind: RecordKind): SearchRoute {
  return { ...search(name, path, kind), method: 'POST', summary: `Search ${kind.records} (form body)` };
}

const SECOND: Differences = { auth: 'token-required', note: 'second description: token required' };

export const ROUTES: readonly Route[] = [
  // DiagnosticReport (spec 2.3)
  search('DiagnosticReport.search', '/api/DiagnosticReport', DIAGNOSTIC_REPORT),
  read('DiagnosticReport.read', '/api/DiagnosticReport/:id', DIAGNOSTIC_REPORT),
  post('DiagnosticReport.search-post', '/api/DiagnosticReport/_search', DIAGNOSTIC_REPORT),
  // CarePlan (spec 2.4): two descriptions; the second (no /api) requires the token.
  search('CarePlan.search', '/api/CarePlan', CARE_PLAN),
  read('CarePlan.read', '/api/CarePlan/:id', CARE_PLAN),
  post('CarePlan.search-post', '/api/CarePlan/_search', CARE_PLAN),
  search('CarePlan.search-second', '/CarePlan', CARE_PLAN, SECOND),
  read('CarePlan.read-second', '/CarePlan/:id', CARE_PLAN, SECOND),
  search('CarePlan.search-get-search', '/CarePlan/_search', CARE_PLAN, { ...SECOND, summary: 'Care Plan Search (second description: token required)' }),
  // CareTeam (spec 2.5)
  search('CareTeam.search', '/api/CareTeam', CARE_TEAM),
  read('CareTeam.read', '/api/CareTeam/:id', CARE_TEAM),
  post('CareTeam.search-post', '/api/CareTeam/_search', CARE_TEAM),
  // AllergyIntolerance (spec 2.6): the POST path is misspelled in the interface; both spellings are served.
  search('AllergyIntolerance.search', '/api/AllergyIntolerance', ALLERGY),
  read('AllergyIntolerance.read', '/api/AllergyIntolerance/:id', ALLERGY),
  post('AllergyIntolerance.search-post-misspelled', '/api/AlleryIntolerance/_search', ALLERGY),
  post('AllergyIntolerance.search-post', '/api/AllergyIntolerance/_search', ALLERGY),
  // Immunization (spec 2.7)
  search('Immunization.search', '/api/Immunization', IMMUNIZATION),
  read('Immunization.read', '/api/Immunization/:id', IMMUNIZATION),
  post('Immunization.search-post', '/api/Immunization/_search', IMMUNIZATION),
  // Condition (spec 2.8)
  search('Condition.search', '/Condition', CONDITION),
  read('Condition.read', '/Condition/:id', CONDITION),
  // Encounter (spec 2.9)
  search('Encounter.search', '/Encounter', ENCOUNTER),
  read('Encounter.read', '/Encounter/:id', ENCOUNTER),
  // Assessment (spec 2.10): a bare array.
  search('Assessments.search', '/api/Assessments', ASSESSMENT),
  // Coverage (spec 2.11)
  search('Coverage.search', '/api/Coverage', COVERAGE),
  read('Coverage.read', '/api/Coverage/:id', COVERAGE),
  post('Coverage.search-post', '/api/Coverage/_search', COVERAGE),
  // Observation with Provenance (spec 2.12)
  search('Observation.search', '/Observation', OBSERVATION),
  // Procedure (spec 2.13)
  search('Procedure.search', '/Procedure', PROCEDURE),
  // Order (spec 2.14): a bare array.
  search('Orders.search', '/Orders', ORDER),
  // Goal, social-determinants side (spec 2.15)
  search('SDOHGoal.search', '/api/SDOHGoal', SDOH_GOAL),
  read('SDOHGoal.read', '/api/SDOHGoal/:id', SDOH_GOAL),
  // Specimen (spec 2.16)
  search('Specimen.search', '/api/Specimen', SPECIMEN),
  read('Specimen.read', '/api/Specimen/:id', SPECIMEN),
  // Practitioner (spec 2.17): directory data, no owning patient; its read takes no parameter.
  search('Practitioner.search', '/Practitioner', PRACTITIONER),
  read('Practitioner.read', '/Practitioner/:id', PRACTITIONER, { params: [] }),
];
