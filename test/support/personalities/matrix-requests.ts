/**
 * The legacy requests the upstream matrix sends, built from the route table and the contract
 * scenarios (test/contract/scenarios.ts), so a route added to the table is in the matrix the day it
 * has its scenario. For each route and each patient: the scenario's call, and the call with every
 * filter value that keeps records; for the first patient each filter alone too; once an empty answer
 * (a patient with no records, or filter values outside the data) and, for reads, an unknown id.
 */
import { ROUTES } from '../../../src/routes.ts';
import type { Route } from '../../../src/route-types.ts';
import { OUTSIDE_VALUES, SCENARIOS, type RouteScenario } from '../../contract/scenarios.ts';

export interface MatrixRequest {
  /** `GET /api/Coverage?patient=1&…`: names the request in a difference report. */
  label: string;
  method: 'GET' | 'POST';
  /** Path and query (the query is the form body for POST). */
  path: string;
  query: string;
}

const TOKEN = 'access_token=matrix-token';
const NO_RECORDS_PATIENT = '999999';

/** The requests of every route, by route name, for `patients` (ids on the embedded server at `embeddedBase`). */
export async function matrixRequests(embeddedBase: string, patients: readonly string[]): Promise<Map<string, MatrixRequest[]>> {
  const byRoute = new Map<string, MatrixRequest[]>();
  for (const route of ROUTES) {
    const scenario = SCENARIOS[route.name];
    // The contract test reports a route without a scenario; here it must not pass unnoticed either.
    if (scenario === undefined) throw new Error(`${route.name} has no scenario in test/contract/scenarios.ts`);
    byRoute.set(route.name, route.kind === 'read' ? await readRequests(route, scenario, embeddedBase, patients) : searchRequests(route, scenario, patients));
  }
  return byRoute;
}

function request(route: Route, path: string, query: string): MatrixRequest {
  const withToken = query ? `${query}&${TOKEN}` : TOKEN;
  const label = `${route.method} ${path}${route.method === 'POST' ? ` (form: ${query})` : query ? `?${query}` : ''}`;
  return { label, method: route.method, path: route.method === 'POST' ? path : `${path}?${withToken}`, query: withToken };
}

const joined = (...parts: string[]) => parts.filter(Boolean).join('&');
const pairs = (filters: Record<string, string>) => Object.entries(filters).map(([name, value]) => `${name}=${encodeURIComponent(value)}`);

function searchRequests(route: Route, scenario: RouteScenario, patients: readonly string[]): MatrixRequest[] {
  const filters = scenario.filters ?? {};
  const names = Object.keys(filters);
  const requests: MatrixRequest[] = [];
  patients.forEach((patient, index) => {
    const base = scenario.query.replace('{patient}', patient);
    requests.push(request(route, route.path, base));
    if (names.length > 1) requests.push(request(route, route.path, joined(base, ...pairs(filters))));
    if (index === 0) for (const pair of pairs(filters)) requests.push(request(route, route.path, joined(base, pair)));
  });
  requests.push(request(route, route.path, scenario.query.replace('{patient}', NO_RECORDS_PATIENT)));
  if (names.length > 0) {
    const outside = Object.fromEntries(names.map((name) => [name, OUTSIDE_VALUES[name]!]));
    requests.push(request(route, route.path, joined(scenario.query.replace('{patient}', patients[0]!), ...pairs(outside))));
  }
  return requests;
}

async function readRequests(route: Route, scenario: RouteScenario, embeddedBase: string, patients: readonly string[]): Promise<MatrixRequest[]> {
  const requests: MatrixRequest[] = [];
  for (const [index, patient] of patients.entries()) {
    const id = await recordId(embeddedBase, scenario, patient, index);
    const path = route.path.replace(':id', id);
    requests.push(request(route, path, ''));
    if (route.params.includes('patient')) requests.push(request(route, path, `patient=${patient}`));
  }
  requests.push(request(route, route.path.replace(':id', 'no-such-record'), ''));
  return requests;
}

/**
 * The record a read asks for: the first match of the scenario's search for this patient, or, for
 * records that belong to no patient (Practitioner), the patient's position in the matches.
 */
async function recordId(embeddedBase: string, scenario: RouteScenario, patient: string, index: number): Promise<string> {
  const byPatient = scenario.idFrom!.includes('{patient}');
  const [type, query = ''] = scenario.idFrom!.replace('{patient}', patient).split('?');
  const bundle = (await (await fetch(`${embeddedBase}/${type}?${query}${query ? '&' : ''}_count=1000`)).json()) as { entry?: { resource: { id: string } }[] };
  const matches = bundle.entry ?? [];
  const found = byPatient ? matches[0] : (matches[index] ?? matches[0]);
  if (found === undefined) throw new Error(`no record for ${scenario.idFrom} (patient ${patient})`);
  return found.resource.id;
}
