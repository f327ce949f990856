/**
 * The patient claim must name one patient. A token whose claim was `355,85` went upstream as
 * `patient=Patient/355,85`, which FHIR reads as "355 or 85", and was only filtered afterwards. A
 * claim that is not one FHIR id (or `Patient/<id>`) makes the token invalid: 401 `invalid-token`
 * before anything is sent upstream, whether the token is introspected or verified as a JWT.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { introspectionValidator } from '../src/access/caller-validation.ts';
import { webHashing } from '../src/ports/hashing.ts';
import { FacadeError } from '../src/errors.ts';
import {
  FACADE_AUDIENCE,
  OPAQUE_FACADE_AUDIENCE,
  serviceModeEnv,
  startAuthorizationServer,
  type AuthorizationServer,
  type PatientApp,
} from './support/authorization-server.ts';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';
import { expectErrorCode } from './support/outcome-code.ts';

const OBSERVATION = { resourceType: 'Observation', id: 'o1', status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/7' } };

/** Claims that are not one patient: a FHIR OR list, a space, a path, too long, another type. */
const BAD_CLAIMS = ['355,85', 'Patient/355,85', '355 85', '../85', 'Patient/', 'Practitioner/85', `${'a'.repeat(65)}`];
const GOOD_CLAIMS = ['7', 'Patient/7'];

/** The Observation's patient, as a server carrying out `_include=Observation:patient` adds it. */
const PATIENT = { resourceType: 'Patient', id: '7' };
const appOf = (claim: string, index: number): PatientApp => ({
  clientId: `app-claim-${index}`,
  secret: `secret-claim-${index}-0123456789`,
  patient: claim,
  scope: 'patient/*.read',
});
const apps = [...BAD_CLAIMS, ...GOOD_CLAIMS].map(appOf);
const appFor = (claim: string) => apps.find((app) => app.patient === claim)!;

let as: AuthorizationServer;
let upstream: CannedUpstream;
const facades: Record<'jwt' | 'introspection', TestService> = {} as never;

beforeAll(async () => {
  as = await startAuthorizationServer(apps);
  upstream = await startCannedUpstream((_, res) => sendJson(res, 200, page([OBSERVATION, PATIENT])));
  for (const validation of ['jwt', 'introspection'] as const) {
    facades[validation] = await startTestService({ ...serviceModeEnv(as, `${upstream.origin}/fhir`, validation), CACHE_ENABLED: 'false' });
  }
});

afterAll(async () => {
  await Promise.all([facades.jwt?.close(), facades.introspection?.close()]);
  await upstream?.close();
  await as?.close();
});

/** A token for the app with this claim, in the form the facade's validation reads (JWT or opaque). */
const tokenOf = (validation: 'jwt' | 'introspection', claim: string) =>
  as.tokenFor(appFor(claim), validation === 'jwt' ? FACADE_AUDIENCE : OPAQUE_FACADE_AUDIENCE);

describe.each(['jwt', 'introspection'] as const)('a patient claim checked by %s', (validation) => {
  it.each(BAD_CLAIMS.map((claim) => [JSON.stringify(claim), claim]))('%s makes the token invalid, and nothing is sent upstream', async (_, claim) => {
    const token = await tokenOf(validation, claim);
    upstream.received.length = 0;
    const facade = facades[validation];
    await expectErrorCode(await facade.get('/Observation', { headers: { authorization: `Bearer ${token}` } }), 401, 'invalid-token');
    await expectErrorCode(await facade.get('/Practitioner', { headers: { authorization: `Bearer ${token}` } }), 401, 'invalid-token');
    expect(upstream.received).toEqual([]);
  });

  it.each(GOOD_CLAIMS)('%s names patient 7, and the search goes upstream for that one patient', async (claim) => {
    const token = await tokenOf(validation, claim);
    upstream.received.length = 0;
    const response = await facades[validation].get('/Observation', { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    const sent = upstream.received.map((request) => new URL(request.url, upstream.origin).searchParams.getAll('patient'));
    expect(sent).toEqual([['Patient/7']]);
  });
});

describe('patient claims that are not strings (introspection answers)', () => {
  const validatorAnswering = (patient: unknown) =>
    introspectionValidator({
      introspectionUrl: 'https://as.example.org/introspect',
      cacheMs: 0,
      patientClaim: 'patient',
      hashing: webHashing(),
      fetch: (async () => Response.json({ active: true, sub: 'user', scope: 'patient/*.read', patient })) as typeof fetch,
    });

  it.each([
    ['a number', 355],
    ['a list', ['355', '85']],
    ['an object', { reference: 'Patient/355' }],
  ])('%s makes the token invalid', async (_, patient) => {
    const refused = await validatorAnswering(patient)('token-value').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(FacadeError);
    expect((refused as FacadeError).code).toBe('invalid-token');
  });

  it('an absent, null or empty claim names no patient: directory routes only', async () => {
    // Authorization servers write `patient: ""` on practitioner and system tokens: no patient, not a bad one.
    for (const absent of [undefined, null, '']) {
      await expect(validatorAnswering(absent)('token-value')).resolves.toMatchObject({ patient: undefined });
    }
  });
});
