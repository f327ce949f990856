/**
 * What the route-table contract demands of every route, as a list of gaps: a schema, a real-data
 * scenario, an auth expectation that agrees with the route's policy, and a bad value for each of
 * its parameters. The contract test fails on any gap.
 */
import type { AuthPolicy, Route } from '../../src/route-types.ts';
import type { RouteScenario } from './scenarios.ts';

/** The status a request without a token gets under each policy (spec sections 5 and 7). */
export const STATUS_WITHOUT_TOKEN: Record<AuthPolicy, 200 | 401 | 403> = {
  optional: 200,
  'token-required': 401,
  'forbidden-without-token': 403,
};

export function contractGaps(
  routes: readonly Route[],
  scenarios: Readonly<Record<string, RouteScenario>>,
  invalidValues: Readonly<Record<string, string>>,
): string[] {
  const gaps: string[] = [];
  for (const route of routes) {
    if (typeof route.shape?.schema !== 'object') gaps.push(`${route.name}: no valibot schema`);
    const scenario = scenarios[route.name];
    if (!scenario) {
      gaps.push(`${route.name}: no test scenario on real data`);
      continue;
    }
    const expected = STATUS_WITHOUT_TOKEN[route.auth];
    if (scenario.withoutToken !== expected) {
      gaps.push(`${route.name}: the auth test expects ${scenario.withoutToken} without a token, the ${route.auth} policy answers ${expected}`);
    }
    if (route.kind === 'read' && scenario.idFrom === undefined) gaps.push(`${route.name}: no record to read by id`);
    for (const param of route.params) {
      if (invalidValues[param] === undefined) gaps.push(`${route.name}: no bad-input case for ${param}`);
      // `patient` is in every scenario's query; `_revinclude` adds records rather than filtering.
      const isFilter = route.kind === 'search' && param !== 'patient' && param !== '_revinclude';
      if (isFilter && scenario.filters?.[param] === undefined) gaps.push(`${route.name}: no filter case for ${param}`);
    }
  }
  const names = new Set(routes.map((route) => route.name));
  for (const name of Object.keys(scenarios)) if (!names.has(name)) gaps.push(`${name}: scenario for a route that does not exist`);
  return gaps;
}
