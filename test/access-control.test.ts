/**
 * Service mode end to end (issue 7): a real authorization server (oidc-provider) issues tokens for
 * two patients with different scopes; the facade, holding its own upstream credential, must never
 * let patient A's token read a record of patient B — through any route of the table, by search with
 * or without `patient`, by id, by `_revinclude`, through the Encounter record or Orders' reports —
 * and must refuse bad tokens (401) and ungranted types (403). The upstream holds records of B that
 * point at A's (test/support/cross-patient-data.ts); a passthrough facade on the same upstream shows
 * they do come back unfiltered, so the filtering is really exercised.
 */
import { generateKeyPair, SignJWT, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmbeddedFhir, type EmbeddedFhir } from '../src/embedded/fhir-server.ts';
import { generateSyntheticBundles } from '../src/embedded/seed/generate.ts';
import type { Route } from '../src/route-types.ts';
import { ROUTES } from '../src/routes.ts';
import { servedPaths } from '../src/served-paths.ts';
import { SCENARIOS } from './contract/scenarios.ts';
import {
  FACADE_AUDIENCE,
  OPAQUE_FACADE_AUDIENCE,
  OTHER_AUDIENCE,
  serviceModeEnv,
  startAuthorizationServer,
  type AuthorizationServer,
  type PatientApp,
} from './support/authorization-server.ts';
import { B_MARKER, crossPatientBundle, fhirSearch, ownerOf, PROVENANCES_ABOUT_A } from './support/cross-patient-data.ts';
import { patientScopeOf } from '../src/pipeline/plans/type-strategies.ts';
import { expectOutcome } from './support/embedded-service.ts';
import { expectErrorCode } from './support/outcome-code.ts';
import { startTestService, type TestService } from './support/facade.ts';

const A = '1';
const B = '2';
const appA: PatientApp = { clientId: 'app-a', secret: 'secret-a-0123456789', patient: A, scope: 'patient/*.read' };
const appB: PatientApp = { clientId: 'app-b', secret: 'secret-b-0123456789', patient: B, scope: 'patient/Condition.rs patient/Patient.read' };
const appBFull: PatientApp = { clientId: 'app-b-full', secret: 'secret-bf-0123456789', patient: B, scope: 'patient/*.rs' };
const appReadOnly: PatientApp = { clientId: 'app-a-read', secret: 'secret-ar-0123456789', patient: A, scope: 'patient/Condition.r' };
const appANarrow: PatientApp = { clientId: 'app-a-narrow', secret: 'secret-an-0123456789', patient: A, scope: 'patient/Condition.rs' };
const appBrief: PatientApp = { clientId: 'app-a-brief', secret: 'secret-ab-0123456789', patient: A, scope: 'patient/*.read', ttl: 1 };
/** Routes whose search reads another type first (a patient scope), and apps for A granted the route's type with or without that one. */
const SCOPED_ROUTES = servedPaths(ROUTES).filter(({ route }) => route.kind === 'search' && patientScopeOf(route.upstream.resourceType) !== undefined);
const scopedApps = (route: Route) => {
  const { resourceType } = route.upstream;
  const patientScope = patientScopeOf(resourceType);
  const app = (suffix: string, scope: string): PatientApp => ({
    clientId: `app-a-${resourceType}-${suffix}`,
    secret: `secret-${resourceType}-${suffix}-0123456789`,
    patient: A,
    scope,
  });
  return {
    typeOnly: app('only', `patient/${resourceType}.read`),
    scopeReadOnly: app('scope-r', `patient/${resourceType}.read patient/${patientScope?.resourceType}.r`),
    both: app('both', `patient/${resourceType}.read patient/${patientScope?.resourceType}.read`),
  };
};
const scopedAppList = [...new Map(SCOPED_ROUTES.flatMap(({ route }) => Object.values(scopedApps(route))).map((app) => [app.clientId, app])).values()];

const RECORD_TYPES = [
  'Patient',
  'DiagnosticReport',
  'CarePlan',
  'CareTeam',
  'AllergyIntolerance',
  'Immunization',
  'Condition',
  'Encounter',
  'Observation',
  'Coverage',
  'Procedure',
  'ServiceRequest',
  'Goal',
  'Specimen',
  'DocumentReference',
];

let upstream: EmbeddedFhir;
let as: AuthorizationServer;
let jwtFacade: TestService;
let introspectionFacade: TestService;
let passthrough: TestService;
/** `Type/id` → the patient the record belongs to ('mixed' for a Provenance about several patients). */
const owners = new Map<string, string>();
/** Every token issued in this file: none may appear in any log or audit line. */
const issued: string[] = [];
let tokenA: string;

async function tokenFor(app: PatientApp, resource = FACADE_AUDIENCE): Promise<string> {
  const token = await as.tokenFor(app, resource);
  issued.push(token);
  return token;
}

beforeAll(async () => {
  upstream = await startEmbeddedFhir({ port: 0 });
  await upstream.load(generateSyntheticBundles());
  await upstream.load([await crossPatientBundle(upstream.baseUrl, A, B)]);
  as = await startAuthorizationServer([appA, appB, appBFull, appReadOnly, appANarrow, appBrief, ...scopedAppList]);
  jwtFacade = await startTestService({ ...serviceModeEnv(as, upstream.baseUrl, 'jwt'), UPSTREAM_SCOPE: 'system/*.read', CLOCK_SKEW_SECONDS: '0' });
  introspectionFacade = await startTestService({ ...serviceModeEnv(as, upstream.baseUrl, 'introspection'), UPSTREAM_SCOPE: 'system/*.read' });
  passthrough = await startTestService({ UPSTREAM_URL: upstream.baseUrl });
  for (const type of RECORD_TYPES) {
    for (const resource of await fhirSearch(upstream.baseUrl, type)) {
      const owner = ownerOf(resource);
      if (owner !== undefined) owners.set(`${type}/${resource.id}`, owner);
    }
  }
  for (const provenance of await fhirSearch(upstream.baseUrl, 'Provenance')) {
    const of = new Set((provenance.target as { reference: string }[]).map((target) => owners.get(target.reference) ?? '?'));
    owners.set(`Provenance/${provenance.id}`, of.size === 1 ? [...of][0]! : 'mixed');
  }
  tokenA = await tokenFor(appA);
});

afterAll(async () => {
  await Promise.all([jwtFacade?.close(), introspectionFacade?.close(), passthrough?.close()]);
  await as?.close();
  await upstream?.close();
});

/** Calls a route at one of its paths: GET with a query, or POST with the query as a form body. */
function call(service: TestService, route: Route, path: string, query: string, token?: string): Promise<Response> {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  if (route.method === 'POST') {
    return service.get(path, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: query });
  }
  return service.get(`${path}${query ? `?${query}` : ''}`, { headers });
}

interface AuditLine {
  requestId: string;
  subject?: string | null;
  patient?: string | null;
  route: string;
  status: number;
  outcome: string;
  resources: string[];
  cache?: string;
}

/** The audit line of a response (by its request id). */
function auditOf(service: TestService, response: Response): AuditLine {
  const requestId = response.headers.get('x-request-id');
  const lines = service.auditLines.map((line) => JSON.parse(line) as AuditLine).filter((line) => line.requestId === requestId);
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

/** Asserts an answer shows A nothing of another patient's: by record ids (audit) and by B's marker text. */
async function expectOnlyA(service: TestService, response: Response, label: string): Promise<string[]> {
  const body = await response.text();
  expect(response.status, `${label}: ${body.slice(0, 200)}`).toBe(200);
  expect(body, label).not.toContain(B_MARKER);
  const { resources } = auditOf(service, response);
  const foreign = resources.filter((id) => owners.has(id) && owners.get(id) !== A);
  expect(foreign, label).toEqual([]);
  return resources;
}

async function recordPath(path: string, route: Route, patient: string): Promise<string> {
  const [type, query = ''] = SCENARIOS[route.name]!.idFrom!.replace('{patient}', patient).split('?');
  const [first] = await fhirSearch(upstream.baseUrl, type!, query);
  return path.replace(':id', first!.id!);
}

describe.each(servedPaths(ROUTES).map(({ route, path }) => ({ route, path, label: `${route.method} ${path}` })))(
  '$label in service mode',
  ({ route, path }) => {
    if (route.kind === 'search') {
      it("answers A's token only A's records, with or without patient, and 403 for B", async () => {
        await expectOnlyA(jwtFacade, await call(jwtFacade, route, path, '', tokenA), `${route.name} without patient`);
        const own = await expectOnlyA(jwtFacade, await call(jwtFacade, route, path, `patient=${A}`, tokenA), `${route.name} patient=A`);
        if (route.upstream.resourceType !== 'Practitioner') expect(own.length).toBeGreaterThan(0);
        await expectErrorCode(await call(jwtFacade, route, path, `patient=${B}`, tokenA), 403, 'patient-denied');
      });
    } else if (route.upstream.resourceType === 'Practitioner') {
      it('reads a directory record by the scopes alone', async () => {
        await expectOnlyA(jwtFacade, await call(jwtFacade, route, await recordPath(path, route, A), '', tokenA), route.name);
      });
    } else {
      it("reads A's record, answers 404 for B's (existence not revealed) and 403 for patient=B", async () => {
        await expectOnlyA(jwtFacade, await call(jwtFacade, route, await recordPath(path, route, A), '', tokenA), route.name);
        const ofB = await recordPath(path, route, B);
        await expectOutcome(await call(jwtFacade, route, ofB, '', tokenA), 404);
        await expectOutcome(await call(jwtFacade, route, ofB, `patient=${B}`, tokenA), 403);
      });
    }
  },
);

describe("B's records pointing at A's", () => {
  it.each([
    ['Provenance by _revinclude', `/Observation?patient=${A}&_revinclude=Provenance:target`],
    ['the Encounter record (B condition, request, note)', `/Encounter?patient=${A}`],
    ["Orders (B's report on A's order)", `/Orders?patient=${A}`],
  ])('are filtered from %s, though the upstream answers them', async (label, path) => {
    const unfiltered = await passthrough.get(path, { headers: { authorization: 'Bearer passthrough' } });
    expect(await unfiltered.text(), `the test data reaches ${label}`).toContain(B_MARKER);
    const filtered = await jwtFacade.get(path, { headers: { authorization: `Bearer ${tokenA}` } });
    const ids = await expectOnlyA(jwtFacade, filtered, label);
    expect(ids).not.toContain('Provenance/x-mixed');
  });

  it("shows a Provenance about A's record only when nothing in it names anyone else", async () => {
    const path = `/Observation?patient=${A}&_revinclude=Provenance:target`;
    const unfiltered = await (await passthrough.get(path, { headers: { authorization: 'Bearer passthrough' } })).text();
    for (const id of Object.keys(PROVENANCES_ABOUT_A)) expect(unfiltered, `the test data reaches ${id}`).toContain(`"${id}"`);
    const ids = await expectOnlyA(jwtFacade, await jwtFacade.get(path, { headers: { authorization: `Bearer ${tokenA}` } }), 'Provenance references');
    const shown = Object.fromEntries(Object.keys(PROVENANCES_ABOUT_A).map((id) => [id, ids.includes(`Provenance/${id}`) ? 'kept' : 'dropped']));
    expect(shown).toEqual(PROVENANCES_ABOUT_A);
  });

  it("keeps a Provenance whose targets are all A's", async () => {
    const ids = await expectOnlyA(
      jwtFacade,
      await jwtFacade.get('/Observation?_revinclude=Provenance:target', { headers: { authorization: `Bearer ${tokenA}` } }),
      'Provenance',
    );
    expect(ids.some((id) => id.startsWith('Provenance/'))).toBe(true);
  });
});

describe('tokens that are not good get 401', () => {
  it('an expired token', async () => {
    const brief = await tokenFor(appBrief);
    await vi.waitFor(async () => expect((await jwtFacade.get(`/Condition?access_token=${brief}`)).status).toBe(401), { timeout: 10_000, interval: 250 });
  });

  it('a forged token (same claims, signed by another key)', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT(decodeJwt(tokenA)).setProtectedHeader({ alg: 'RS256', kid: 'as-signing' }).sign(privateKey);
    issued.push(forged);
    await expectOutcome(await jwtFacade.get(`/Condition?access_token=${forged}`), 401);
  });

  it('a token for another audience', async () => {
    await expectOutcome(await jwtFacade.get(`/Condition?access_token=${await tokenFor(appA, OTHER_AUDIENCE)}`), 401);
  });

  it('no token, or one that is not a JWT', async () => {
    await expectOutcome(await jwtFacade.get(`/api/DiagnosticReport?patient=${A}`), 401);
    await expectOutcome(await jwtFacade.get('/Condition?access_token=not-a-jwt'), 401);
  });

  it('a revoked token (introspection)', async () => {
    const good = await tokenFor(appA, OPAQUE_FACADE_AUDIENCE);
    const revoked = await tokenFor(appA, OPAQUE_FACADE_AUDIENCE);
    await as.revoke(appA, revoked);
    await expectOnlyA(introspectionFacade, await introspectionFacade.get(`/Condition?access_token=${good}`), 'introspected');
    await expectOutcome(await introspectionFacade.get(`/Condition?access_token=${revoked}`), 401);
    await expectOutcome(await introspectionFacade.get('/Condition?access_token=never-issued'), 401);
  });
});

describe('scopes', () => {
  it('a token without Observation gets 403 on Observation and reads what it is granted', async () => {
    const tokenB = await tokenFor(appB);
    await expectOutcome(await jwtFacade.get(`/Observation?access_token=${tokenB}`), 403);
    await expectOutcome(await jwtFacade.get(`/api/Assessments?access_token=${tokenB}`), 403);
    const conditions = await jwtFacade.get(`/Condition?access_token=${tokenB}`);
    expect(conditions.status).toBe(200);
    expect(auditOf(jwtFacade, conditions).resources.every((id) => owners.get(id) === B)).toBe(true);
  });

  it('v2 `.r` reads by id but does not search', async () => {
    const readOnly = await tokenFor(appReadOnly);
    await expectOutcome(await jwtFacade.get(`/Condition?access_token=${readOnly}`), 403);
    const [condition] = await fhirSearch(upstream.baseUrl, 'Condition', `patient=Patient/${A}`);
    expect((await jwtFacade.get(`/Condition/${condition!.id}?access_token=${readOnly}`)).status).toBe(200);
  });

  // Each search is pinned to the token's patient, so this holds whatever the cache key: see the next test for the key.
  it('the same URL answers each caller its own patient', async () => {
    const tokenB = await tokenFor(appBFull);
    const forA = auditOf(jwtFacade, await jwtFacade.get(`/api/CareTeam?access_token=${tokenA}`)).resources;
    const forB = auditOf(jwtFacade, await jwtFacade.get(`/api/CareTeam?access_token=${tokenB}`)).resources;
    // Patient-owned records only: directory records (the members' Practitioners) are shared by design.
    const ownedA = forA.filter((id) => owners.has(id));
    const ownedB = forB.filter((id) => owners.has(id));
    expect(ownedA.length).toBeGreaterThan(0);
    expect(ownedB.every((id) => owners.get(id) === B)).toBe(true);
    expect(ownedB.some((id) => ownedA.includes(id))).toBe(false);
  });
});

describe('the response cache', () => {
  it('keys by caller: two tokens for one patient with different scopes are each answered their own', async () => {
    const path = `/Condition?patient=${A}&category=problem-list-item`;
    const full = auditOf(jwtFacade, await jwtFacade.get(path, { headers: { authorization: `Bearer ${tokenA}` } }));
    expect(full.resources.some((id) => id.startsWith('Condition/'))).toBe(true);
    expect(full.resources, 'patient/*.read sees the Patient (its name)').toContain(`Patient/${A}`);
    // Same URL, same patient: only the caller tells the two requests apart.
    const narrow = auditOf(jwtFacade, await jwtFacade.get(path, { headers: { authorization: `Bearer ${await tokenFor(appANarrow)}` } }));
    expect(narrow).toMatchObject({ status: 200, cache: 'miss' });
    expect(narrow.resources.filter((id) => id.startsWith('Condition/'))).toEqual(full.resources.filter((id) => id.startsWith('Condition/')));
    expect(narrow.resources, 'patient/Condition.rs does not see the Patient').not.toContain(`Patient/${A}`);
  });
});

describe('a search that reads another type first (a patient scope)', () => {
  it('exists in the route table', () => {
    expect(SCOPED_ROUTES.length).toBeGreaterThan(0);
  });

  it.each(SCOPED_ROUTES.map(({ route, path }) => ({ route, path, label: `${route.method} ${path}` })))(
    '$label by patient needs that type searchable too (403 otherwise); without patient, its own type only',
    async ({ route, path }) => {
      const apps = scopedApps(route);
      const through = patientScopeOf(route.upstream.resourceType)!.resourceType;
      // Granted the route's type alone, the token would learn from the other type's records (who treated the patient).
      const typeOnly = await tokenFor(apps.typeOnly);
      await expectErrorCode(await call(jwtFacade, route, path, `patient=${A}`, typeOnly), 403, 'scope-denied');
      expect((await call(jwtFacade, route, path, '', typeOnly)).status, `${route.name}: the directory search reads no ${through}`).toBe(200);
      // v2 `.r` grants reading by id, not the search the patient scope runs.
      await expectErrorCode(await call(jwtFacade, route, path, `patient=${A}`, await tokenFor(apps.scopeReadOnly)), 403, 'scope-denied');
      const both = await call(jwtFacade, route, path, `patient=${A}`, await tokenFor(apps.both));
      const ids = await expectOnlyA(jwtFacade, both, route.name);
      expect(ids.length, `${route.name}: A has ${through} records naming some`).toBeGreaterThan(0);
    },
  );
});

describe('the audit log', () => {
  it('has one line per request with subject, patient, route, ids and outcome, apart from the access log', async () => {
    const before = jwtFacade.auditLines.length;
    const response = await jwtFacade.get(`/Condition?access_token=${tokenA}`);
    const denied = await jwtFacade.get(`/Condition?patient=${B}&access_token=${tokenA}`);
    expect(jwtFacade.auditLines.length).toBe(before + 2);
    expect(auditOf(jwtFacade, response)).toMatchObject({
      log: 'audit',
      subject: appA.clientId,
      patient: A,
      route: 'Condition.search',
      status: 200,
      outcome: 'allowed',
    });
    // The Conditions, and the records included to build them (the Patient whose name is shown).
    const resources = auditOf(jwtFacade, response).resources;
    expect(resources.some((id) => id.startsWith('Condition/'))).toBe(true);
    expect(resources.every((id) => id.startsWith('Condition/') || id === `Patient/${A}`)).toBe(true);
    expect(auditOf(jwtFacade, denied)).toMatchObject({ subject: appA.clientId, status: 403, outcome: 'denied', resources: [] });
    expect(jwtFacade.logLines.some((line) => line.includes('"log":"audit"'))).toBe(false);
  });

  it('and no log line of any facade holds a token', () => {
    const everything = [jwtFacade, introspectionFacade].flatMap((service) => [...service.logLines, ...service.auditLines]).join('\n');
    expect(issued.length).toBeGreaterThan(5);
    for (const token of issued) expect(everything).not.toContain(token);
  });
});
