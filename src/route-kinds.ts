/**
 * What the operations on one kind of record share (spec section 2): the upstream FHIR query, the
 * legacy shapes, the parameters and policy of its searches, the envelope, and the words of the
 * OpenAPI summaries. The route table (src/routes.ts) is one row per operation over these.
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
import type { LegacyShape } from '../mappers/legacy-shape.ts';
import { observationShape } from '../mappers/observation.mapper.ts';
import { orderShape } from '../mappers/order.mapper.ts';
import { practitionerShape } from '../mappers/practitioner.mapper.ts';
import { procedureShape } from '../mappers/procedure.mapper.ts';
import { provenanceShape } from '../mappers/provenance.mapper.ts';
import { specimenShape } from '../mappers/specimen.mapper.ts';
import type { ParamName } from './params.ts';
import type { AuthPolicy, BundleType, UpstreamQuery } from './route-types.ts';

export interface RecordKind {
  upstream: UpstreamQuery;
  /** The shape of each record of a search. */
  shape: LegacyShape;
  /** The shape of a record read by id, where it differs (DiagnosticReport's has `id` and `result`). */
  recordShape?: LegacyShape;
  /** The parameters and auth policy of its searches. */
  params: readonly ParamName[];
  auth: AuthPolicy;
  /** A Bundle of this type, or a bare JSON array (spec 2.10, 2.14). */
  envelope: BundleType | 'array';
  /** Included resources that become entries of their own (Observation's Provenance). */
  includedEntries?: Readonly<Record<string, LegacyShape>>;
  /** The words of the summaries: `Search <records>`, `Read one <record>`. */
  records: string;
  record: string;
}

const DATED: readonly ParamName[] = ['patient', 'start_date', 'end_date'];
const CODED: readonly ParamName[] = [...DATED, 'code', 'category', 'date'];

/** The patient's name is `subject.display` in most legacy shapes: the Patient comes in the same round trip. */
const withPatient = (type: string): readonly string[] => [`${type}:patient`];

export const DIAGNOSTIC_REPORT: RecordKind = {
  upstream: { resourceType: 'DiagnosticReport', dateParam: 'date' },
  shape: diagnosticReportSearchEntry,
  recordShape: diagnosticReportRecord,
  params: CODED,
  auth: 'optional',
  envelope: 'searchset',
  records: 'diagnostic reports',
  record: 'diagnostic report',
};
export const CARE_PLAN: RecordKind = {
  upstream: { resourceType: 'CarePlan', dateParam: 'date', include: withPatient('CarePlan') },
  shape: carePlanShape,
  params: [...DATED, 'category'],
  auth: 'optional',
  envelope: 'search set',
  records: 'care plans',
  record: 'care plan',
};
export const CARE_TEAM: RecordKind = {
  upstream: { resourceType: 'CareTeam', dateParam: 'date', include: [...withPatient('CareTeam'), 'CareTeam:participant'] },
  shape: careTeamShape,
  params: [...DATED, 'status'],
  auth: 'optional',
  envelope: 'searchset',
  records: 'care teams',
  record: 'care team',
};
export const ALLERGY: RecordKind = {
  upstream: { resourceType: 'AllergyIntolerance', dateParam: 'date', include: withPatient('AllergyIntolerance') },
  shape: allergyIntoleranceShape,
  params: DATED,
  auth: 'forbidden-without-token',
  envelope: 'searchset',
  records: 'allergies',
  record: 'allergy',
};
export const IMMUNIZATION: RecordKind = {
  upstream: { resourceType: 'Immunization', dateParam: 'date' },
  shape: immunizationShape,
  params: DATED,
  auth: 'forbidden-without-token',
  envelope: 'searchset',
  records: 'immunizations',
  record: 'immunization',
};
export const CONDITION: RecordKind = {
  upstream: { resourceType: 'Condition', dateParam: 'onset-date', include: withPatient('Condition') },
  shape: conditionShape,
  params: [...DATED, 'category'],
  auth: 'optional',
  envelope: 'searchset',
  records: 'conditions',
  record: 'condition',
};
/** Everything the serialized Encounter record needs, in the one round trip of the search. */
export const ENCOUNTER: RecordKind = {
  upstream: {
    resourceType: 'Encounter',
    include: ['Encounter:patient', 'Encounter:location', 'Encounter:participant', 'Encounter:diagnosis'],
    revinclude: ['DocumentReference:encounter', 'ServiceRequest:encounter', 'Condition:encounter'],
  },
  shape: encounterShape,
  params: ['patient'],
  auth: 'optional',
  envelope: 'searchset',
  records: 'encounters',
  record: 'encounter',
};
/** Survey-category Observations (the site's ASSESSMENT_CATEGORY), a bare array. */
export const ASSESSMENT: RecordKind = {
  upstream: { resourceType: 'Observation', dateParam: 'date', select: 'assessment-category', include: withPatient('Observation') },
  shape: assessmentShape,
  params: DATED,
  auth: 'forbidden-without-token',
  envelope: 'array',
  records: 'assessments (survey observations)',
  record: 'assessment',
};
/** Coverage has no date search parameter in FHIR R4: the plans compare the dates with its period (plans/type-strategies.ts). */
export const COVERAGE: RecordKind = {
  upstream: { resourceType: 'Coverage' },
  shape: coverageShape,
  params: DATED,
  auth: 'optional',
  envelope: 'searchset',
  records: 'coverage',
  record: 'coverage',
};
export const OBSERVATION: RecordKind = {
  upstream: { resourceType: 'Observation', dateParam: 'date', include: withPatient('Observation') },
  shape: observationShape,
  params: [...CODED, '_revinclude'],
  auth: 'token-required',
  envelope: 'search set',
  includedEntries: { Provenance: provenanceShape },
  records: 'observations, optionally with their Provenance',
  record: 'observation',
};
export const PROCEDURE: RecordKind = {
  upstream: { resourceType: 'Procedure', dateParam: 'date', include: withPatient('Procedure') },
  shape: procedureShape,
  params: [...DATED, 'date'],
  auth: 'token-required',
  envelope: 'search set',
  records: 'procedures',
  record: 'procedure',
};
/** ServiceRequests with the reports based on them, a bare array. */
export const ORDER: RecordKind = {
  upstream: { resourceType: 'ServiceRequest', dateParam: 'authored', revinclude: ['DiagnosticReport:based-on'] },
  shape: orderShape,
  params: DATED,
  auth: 'forbidden-without-token',
  envelope: 'array',
  records: 'orders',
  record: 'order',
};
/** Goals of the site's SDOH_GOAL_CATEGORY. */
export const SDOH_GOAL: RecordKind = {
  upstream: { resourceType: 'Goal', dateParam: 'start-date', select: 'sdoh-goal-category', include: withPatient('Goal') },
  shape: goalShape,
  params: DATED,
  auth: 'optional',
  envelope: 'searchset',
  records: 'social-determinants goals',
  record: 'social-determinants goal',
};
export const SPECIMEN: RecordKind = {
  upstream: { resourceType: 'Specimen', dateParam: 'collected', include: withPatient('Specimen') },
  shape: specimenShape,
  params: DATED,
  auth: 'optional',
  envelope: 'searchset',
  records: 'specimens',
  record: 'specimen',
};
/** Practitioner has no patient parameter: the plans find a patient's through their encounters (plans/type-strategies.ts). */
export const PRACTITIONER: RecordKind = {
  upstream: { resourceType: 'Practitioner' },
  shape: practitionerShape,
  params: ['patient'],
  auth: 'optional',
  envelope: 'searchset',
  records: 'practitioners',
  record: 'practitioner',
};
