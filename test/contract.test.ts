/**
 * One contract over the route table: every route, at every path it is served on, answers its
 * real-data scenario on the embedded upstream with payloads valid against its schema, reproduces
 * its auth policy, answers an empty result, narrows with each filter, and refuses bad input.
 * A route added without its schema, scenario or auth expectation turns this suite red.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../src/routes.ts';
import type { Route } from '../src/route-types.ts';
import { servedPaths } from '../src/served-paths.ts';
import { contractGaps } from './contract/contract-gaps.ts';
import { INVALID_VALUES, OUTSIDE_VALUES, SCENARIOS, type RouteScenario } from './contract/scenarios.ts';
import { expectOutcome, expectValid, startEmbeddedTestService, type EmbeddedTestService } from './support/embedded-service.ts';

describe('the contract checker', () => {
  it('finds no gap in the route table', () => {
    expect(contractGaps(ROUTES, SCENARIOS, INVALID_VALUES)).toEqual([]);
  });

  it('turns red for a route added without its scenario, auth test or filter cases (entries made for the purpose)', () => {
    const template = ROUTES.find((route) => route.name === 'Condition.search')!;
    const unregistered: Route = { ...template, name: 'Example.unregistered', path: '/api/Example' };
    const wrongPolicy: Route = { ...template, auth: 'forbidden-without-token' };
    const untestedFilter: Route = { ...ROUTES.find((route) => route.name === 'Coverage.search')!, params: ['patient', 'start_date', 'end_date', 'code'] };
    const table = [...ROUTES.filter((route) => !['Condition.search', 'Coverage.search'].includes(route.name)), unregistered, wrongPolicy, untestedFilter];
    expect(contractGaps(table, SCENARIOS, INVALID_VALUES)).toEqual([
      'Example.unregistered: no test scenario on real data',
      'Condition.search: the auth test expects 200 without a token, the forbidden-without-token policy answers 403',
      'Coverage.search: no filter case for code',
    ]);
  });
});

let service: EmbeddedTestService;
let patientId: string;

beforeAll(async () => {
  service = await startEmbeddedTestService();
  patientId = (await service.fhirSearch('Patient'))[0]!.id!;
});
afterAll(async () => service?.close());

/** Calls a route at one of its paths: GET with a query, or POST with the query as a form body. */
async function call(route: Route, path: string, query: string, token: string | undefined): Promise<Response> {
  const withToken = token === undefined ? query : `${query}${query ? '&' : ''}access_token=${token}`;
  if (route.method === 'POST') {
    return service.get(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: withToken });
  }
  return service.get(`${path}${withToken ? `?${withToken}` : ''}`);
}

/** The records of an answer, each paired with the key that identifies it (full_url, or its JSON). */
function records(route: Route, body: unknown): { key: string; record: unknown }[] {
  if (route.kind === 'read') return [{ key: 'record', record: body }];
  if (route.envelope === 'array') return (body as unknown[]).map((record) => ({ key: JSON.stringify(record), record }));
  const bundle = body as { type: string; total: number; entry: { full_url: string; resource: unknown }[] };
  expect(bundle).toMatchObject({ resourceType: 'Bundle', type: route.bundleType });
  expect(bundle.total).toBe(bundle.entry.length);
  return bundle.entry.map((entry) => ({ key: entry.full_url, record: entry.resource }));
}

async function pathFor(route: Route, path: string, scenario: RouteScenario): Promise<string> {
  if (route.kind !== 'read') return path;
  const [type, query = ''] = scenario.idFrom!.replace('{patient}', patientId).split('?');
  const [first] = await service.fhirSearch(type!, query);
  expect(first, `a record for ${route.name}`).toBeDefined();
  return path.replace(':id', first!.id!);
}

// Routes without a scenario are reported by the gap test above rather than crashing this loop.
const covered = servedPaths(ROUTES).filter(({ route }) => SCENARIOS[route.name] !== undefined);
describe.each(covered.map(({ route, path }) => ({ route, path, label: `${route.method} ${path}` })))('$label', ({ route, path }) => {
  const scenario = SCENARIOS[route.name]!;
  const query = () => scenario.query.replace('{patient}', patientId);

  it('answers its real-data scenario with records valid against the schema', async () => {
    const response = await call(route, await pathFor(route, path, scenario), query(), 'contract-token');
    const body = await response.json();
    expect(response.status, JSON.stringify(body).slice(0, 200)).toBe(200);
    const found = records(route, body);
    expect(found.length).toBeGreaterThan(0);
    for (const { key, record } of found) expectValid(route.shape.schema, record, `${route.name} ${key}`);
  });

  if (route.kind === 'read' && route.params.includes('patient')) {
    it('answers the record to its own patient and 404 to another', async () => {
      const target = await pathFor(route, path, scenario);
      expect((await call(route, target, `patient=${patientId}`, 'contract-token')).status).toBe(200);
      await expectOutcome(await call(route, target, 'patient=999999', 'contract-token'), 404);
    });
  }

  it(`answers ${scenario.withoutToken} without a token, as its ${route.auth} policy says`, async () => {
    const response = await call(route, await pathFor(route, path, scenario), query(), undefined);
    if (scenario.withoutToken === 200) expect(response.status).toBe(200);
    else await expectOutcome(response, scenario.withoutToken);
  });

  it.each(route.params.map((param) => [param, INVALID_VALUES[param]!]))('refuses a bad %s (%s) with 400', async (param, value) => {
    const target = await pathFor(route, path, scenario);
    await expectOutcome(await call(route, target, `${param}=${encodeURIComponent(value)}`, 'contract-token'), 400);
  });

  if (route.kind === 'search') {
    it('answers an empty result for a patient with no records', async () => {
      const response = await call(route, path, 'patient=999999', 'contract-token');
      expect(response.status).toBe(200);
      const body = await response.json();
      expect(body).toEqual(route.envelope === 'array' ? [] : expect.objectContaining({ entry: [], total: 0 }));
    });

    it.each(Object.entries(scenario.filters ?? {}))(
      'applies %s=%s: a non-empty subset, and fewer records for a value outside the data',
      async (name, value) => {
        const keysFor = async (extra: string) => {
          const response = await call(route, path, `${query()}${extra}`, 'contract-token');
          expect(response.status).toBe(200);
          const found = records(route, await response.json());
          for (const { key, record } of found) expectValid(route.shape.schema, record, `${route.name} ${key}`);
          return found.map(({ key }) => key);
        };
        const all = await keysFor('');
        const inside = await keysFor(`&${name}=${encodeURIComponent(value)}`);
        const outside = await keysFor(`&${name}=${encodeURIComponent(OUTSIDE_VALUES[name]!)}`);
        expect(inside.length).toBeGreaterThan(0);
        for (const key of inside) expect(all).toContain(key);
        expect(outside.length).toBeLessThan(all.length);
      },
    );
  }
});
