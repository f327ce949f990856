/**
 * One scenario per route, by route name: how the contract test calls it on the generated data and
 * what it must answer without a token. A route without an entry here fails the contract test.
 */

export interface RouteScenario {
  /** Query of the real-data call (the `{patient}` placeholder is the seeded patient's id). */
  query: string;
  /** For by-id reads: the FHIR search on the embedded upstream whose first match is the record read. */
  idFrom?: string;
  /** Status expected without a token; the contract checks it agrees with the route's auth policy. */
  withoutToken: 200 | 401 | 403;
  /**
   * A value for each filter the route takes that keeps some of the patient's records. The contract
   * checks it answers a non-empty subset, and that the filter's OUTSIDE_VALUES answer fewer records
   * than no filter: together, the filter is applied and does not drop everything.
   */
  filters?: Record<string, string>;
}

/** For each filter, a value that matches none of the generated records. */
export const OUTSIDE_VALUES: Record<string, string> = {
  start_date: '2099-01-01',
  end_date: '2000-01-01',
  date: 'lt2000-01-01',
  code: 'no-such-code',
  category: 'no-such-category',
  status: 'entered-in-error',
};

const DATES = { start_date: '2015-01-01', end_date: '2099-12-31' };

const search = (withoutToken: RouteScenario['withoutToken'], filters: Record<string, string> = {}): RouteScenario => ({
  query: 'patient={patient}',
  withoutToken,
  filters: { ...DATES, ...filters },
});
const read = (idFrom: string): RouteScenario => ({ query: '', idFrom, withoutToken: 401 });

export const SCENARIOS: Record<string, RouteScenario> = {
  'DiagnosticReport.search': search(200, { code: '4548-4', category: 'LAB', date: 'ge2024-01-01' }),
  'DiagnosticReport.read': read('DiagnosticReport?patient=Patient/{patient}'),
  'DiagnosticReport.search-post': search(200, {
    code: 'http://loinc.org|4548-4',
    category: 'http://terminology.hl7.org/CodeSystem/v2-0074|LAB',
    date: 'le2024-01-01',
  }),
  'CarePlan.search': search(200, { category: 'assess-plan' }),
  'CarePlan.read': read('CarePlan?patient=Patient/{patient}'),
  'CarePlan.search-post': search(200, { category: 'assess-plan' }),
  'CarePlan.search-second': search(401, { category: 'http://hl7.org/fhir/us/core/CodeSystem/careplan-category|assess-plan' }),
  'CarePlan.read-second': read('CarePlan?patient=Patient/{patient}'),
  'CarePlan.search-get-search': search(401, { category: 'assess-plan' }),
  'CareTeam.search': search(200, { status: 'active' }),
  'CareTeam.read': read('CareTeam?patient=Patient/{patient}'),
  'CareTeam.search-post': search(200, { status: 'proposed' }),
  'AllergyIntolerance.search': search(403),
  'AllergyIntolerance.read': read('AllergyIntolerance?patient=Patient/{patient}'),
  'AllergyIntolerance.search-post-misspelled': search(403),
  'AllergyIntolerance.search-post': search(403),
  'Immunization.search': search(403),
  'Immunization.read': read('Immunization?patient=Patient/{patient}'),
  'Immunization.search-post': search(403),
  'Condition.search': search(200, { category: 'problem-list-item' }),
  'Condition.read': read('Condition?patient=Patient/{patient}'),
  'Encounter.search': { query: 'patient={patient}', withoutToken: 200 },
  'Encounter.read': read('Encounter?patient=Patient/{patient}'),
  'Assessments.search': search(403),
  'Coverage.search': search(200),
  'Coverage.read': read('Coverage?patient=Patient/{patient}'),
  'Coverage.search-post': search(200),
  'Observation.search': search(401, { code: '72166-2', category: 'social-history', date: 'lt2022-01-01' }),
  'Procedure.search': search(401, { date: 'ge2024-01-01' }),
  'Orders.search': search(403),
  'SDOHGoal.search': search(200),
  'SDOHGoal.read': read('Goal?patient=Patient/{patient}&category=sdoh'),
  'Specimen.search': search(200),
  'Specimen.read': read('Specimen?patient=Patient/{patient}'),
  'Practitioner.search': { query: 'patient={patient}', withoutToken: 200 },
  'Practitioner.read': read('Practitioner'),
};

/** A value each parameter must refuse with 400. */
export const INVALID_VALUES: Record<string, string> = {
  patient: 'not an id!',
  start_date: '2023-02-30',
  end_date: 'yesterday',
  code: '',
  category: 'a|b|c',
  date: 'eq2023-01-01',
  status: 'on-hold',
  _revinclude: 'Provenance:entity',
};
