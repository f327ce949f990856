// The embedded FHIR server over real HTTP: search, paging, includes, references, read, errors.
import type { Bundle, BundleEntry, OperationOutcome, Resource } from '@medplum/fhirtypes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddedFhir } from '../src/embedded/fhir-server.ts';
import { startEmbeddedFhir } from '../src/embedded/fhir-server.ts';

const OBS_PER_ALICE = 120;
const OBS_PER_BOB = 30;

/** Alice (120 Observations, 3 Encounters), Bob (30 Observations), Carol (PUT, id carol-1), one Provenance. */
function testBundle(): Bundle {
  const entry: BundleEntry[] = [
    post('urn:uuid:alice', { resourceType: 'Patient', name: [{ family: 'Álvarez', given: ['Alice'] }] }),
    post('urn:uuid:bob', { resourceType: 'Patient', name: [{ family: 'Brown', given: ['Bob'] }] }),
    {
      fullUrl: 'urn:uuid:carol',
      request: { method: 'PUT', url: 'Patient/carol-1' },
      resource: { resourceType: 'Patient', id: 'carol-1', name: [{ family: 'Chen' }] },
    },
  ];
  const observation = (patient: string, i: number): Resource => ({
    resourceType: 'Observation',
    status: 'final',
    code: { coding: [{ system: 'http://loinc.org', code: i % 3 === 0 ? '8867-4' : '29463-7', display: 'Heart rate' }] },
    subject: { reference: patient },
    effectiveDateTime: `${2015 + (i % 10)}-0${1 + (i % 9)}-15T10:00:00Z`,
    valueQuantity: { value: 60 + i, unit: 'beats/minute', system: 'http://unitsofmeasure.org', code: '/min' },
  });
  for (let i = 0; i < OBS_PER_ALICE; i++) entry.push(post(`urn:uuid:obs-a${i}`, observation('urn:uuid:alice', i)));
  for (let i = 0; i < OBS_PER_BOB; i++) entry.push(post(`urn:uuid:obs-b${i}`, observation('urn:uuid:bob', i)));
  for (let i = 0; i < 3; i++) {
    entry.push(post(`urn:uuid:enc${i}`, { resourceType: 'Encounter', status: 'finished', class: { code: 'AMB' }, subject: { reference: 'urn:uuid:alice' } }));
  }
  entry.push(
    post('urn:uuid:prov', {
      resourceType: 'Provenance',
      recorded: '2020-01-01T00:00:00Z',
      agent: [{ who: { display: 'test' } }],
      target: [{ reference: 'urn:uuid:obs-a0' }, { reference: 'urn:uuid:obs-a1' }, { reference: 'urn:uuid:alice' }],
    }),
  );
  return { resourceType: 'Bundle', type: 'transaction', entry };
}

function post(fullUrl: string, resource: Resource): BundleEntry {
  return { fullUrl, request: { method: 'POST', url: resource.resourceType }, resource };
}

let fhir: EmbeddedFhir;
let alice: string;
let bob: string;

async function get<T = Bundle>(pathOrUrl: string, init?: RequestInit): Promise<{ status: number; body: T; type: string | null }> {
  const res = await fetch(pathOrUrl.startsWith('http') ? pathOrUrl : fhir.baseUrl + pathOrUrl, init);
  return { status: res.status, body: (await res.json()) as T, type: res.headers.get('content-type') };
}

const ids = (bundle: Bundle, mode = 'match') =>
  (bundle.entry ?? []).filter((e) => e.search?.mode === mode).map((e) => `${e.resource?.resourceType}/${e.resource?.id}`);
const nextLink = (bundle: Bundle) => bundle.link?.find((l) => l.relation === 'next')?.url;

beforeAll(async () => {
  fhir = await startEmbeddedFhir({ port: 0 });
  await fhir.load([testBundle()]);
  const patients = (await get('/Patient?_count=10')).body;
  const idOf = (family: string) =>
    patients.entry?.find((e) => (e.resource as { name?: { family?: string }[] }).name?.[0]?.family === family)?.resource?.id ?? '';
  alice = idOf('Álvarez');
  bob = idOf('Brown');
});

afterAll(async () => {
  await fhir?.close();
});

describe('embedded FHIR server: search', () => {
  it('reports the real port and base URL when started on port 0', () => {
    expect(fhir.port).toBeGreaterThan(0);
    expect(fhir.baseUrl).toBe(`http://127.0.0.1:${fhir.port}/fhir`);
  });

  it('applies the default page size of 50 and links the next page on its own base URL', async () => {
    const { status, body, type } = await get(`/Observation?patient=${alice}`);
    expect(status).toBe(200);
    expect(type).toMatch(/^application\/fhir\+json/);
    expect(body.type).toBe('searchset');
    expect(body.total).toBe(OBS_PER_ALICE);
    expect(body.entry).toHaveLength(50);
    const next = new URL(nextLink(body) ?? '');
    expect(next.href.startsWith(`${fhir.baseUrl}/Observation?`)).toBe(true);
    expect(next.searchParams.get('_offset')).toBe('50');
    expect(next.searchParams.get('patient')).toBe(alice);
  });

  it('returns every match exactly once when following next links', async () => {
    const seen: string[] = [];
    let url: string | undefined = `${fhir.baseUrl}/Observation?_count=7`;
    let total = -1;
    while (url) {
      const page: Bundle = (await get(url)).body;
      total = page.total ?? -1;
      expect(page.entry?.length ?? 0).toBeLessThanOrEqual(7);
      seen.push(...ids(page));
      url = nextLink(page);
    }
    expect(total).toBe(OBS_PER_ALICE + OBS_PER_BOB);
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
  });

  it('clamps _count to the maximum page size', async () => {
    const small = await startEmbeddedFhir({ port: 0, maxPageSize: 10 });
    try {
      await small.load([testBundle()]);
      const { body } = await get(`${small.baseUrl}/Observation?_count=5000`);
      expect(body.entry).toHaveLength(10);
      expect(new URL(nextLink(body) ?? '').searchParams.get('_count')).toBe('10');
    } finally {
      await small.close();
    }
  });

  it('gives every entry an absolute fullUrl <base>/<Type>/<id>', async () => {
    const { body } = await get(`/Observation?patient=${bob}&_count=3`);
    for (const entry of body.entry ?? []) {
      expect(entry.fullUrl).toBe(`${fhir.baseUrl}/Observation/${entry.resource?.id}`);
    }
  });

  it('matches a bare id, Type/id and an absolute URL of this server for reference parameters', async () => {
    const forms = [alice, `Patient/${alice}`, `${fhir.baseUrl}/Patient/${alice}`];
    for (const form of forms) {
      const { body } = await get(`/Observation?patient=${encodeURIComponent(form)}&_count=0`);
      expect(body.total, form).toBe(OBS_PER_ALICE);
    }
    expect((await get(`/Observation?subject=${bob}&_count=0`)).body.total).toBe(OBS_PER_BOB);
    expect((await get(`/Observation?subject:Patient=${bob}&_count=0`)).body.total).toBe(OBS_PER_BOB);
    expect((await get(`/Observation?patient=${alice},${bob}&_count=0`)).body.total).toBe(OBS_PER_ALICE + OBS_PER_BOB);
    expect((await get('/Observation?patient=no-such-patient&_count=0')).body.total).toBe(0);
  });

  it('filters by token, date prefixes, quantity and string', async () => {
    const heart = (await get(`/Observation?patient=${alice}&code=8867-4&_count=0`)).body.total;
    expect(heart).toBe(OBS_PER_ALICE / 3);
    expect((await get(`/Observation?patient=${alice}&code=http://loinc.org|8867-4&_count=0`)).body.total).toBe(heart);
    expect((await get(`/Observation?patient=${alice}&code=http://snomed.info/sct|8867-4&_count=0`)).body.total).toBe(0);
    expect((await get(`/Observation?patient=${alice}&code=8867-4,29463-7&_count=0`)).body.total).toBe(OBS_PER_ALICE);

    // Years 2015..2024 cycle through i % 10, so two years hold a fifth of Alice's Observations
    const dated = (await get(`/Observation?patient=${alice}&date=ge2016-01-01&date=le2017-12-31`)).body;
    expect(dated.total).toBe(OBS_PER_ALICE / 5);
    for (const entry of dated.entry ?? []) {
      const when = (entry.resource as { effectiveDateTime?: string }).effectiveDateTime ?? '';
      expect(when >= '2016' && when < '2018').toBe(true);
    }
    expect((await get(`/Observation?patient=${alice}&date=2016&_count=0`)).body.total).toBe(OBS_PER_ALICE / 10);
    expect((await get(`/Observation?patient=${bob}&value-quantity=ge80&_count=0`)).body.total).toBe(10);

    expect(ids((await get('/Patient?name=alvarez')).body)).toEqual([`Patient/${alice}`]);
    expect(ids((await get('/Patient?family=bro')).body)).toEqual([`Patient/${bob}`]);
    expect(ids((await get('/Patient?name:exact=Brown')).body)).toEqual([`Patient/${bob}`]);
    expect((await get('/Patient?name=rown&_count=0')).body.total).toBe(0);
    expect((await get('/Patient?name:contains=rown&_count=0')).body.total).toBe(1);
  });

  it('includes referenced resources once, marked include, not counted in total', async () => {
    const { body } = await get(`/Encounter?patient=${alice}&_include=Encounter:patient`);
    expect(body.total).toBe(3);
    expect(ids(body)).toHaveLength(3);
    expect(ids(body, 'include')).toEqual([`Patient/${alice}`]);
    const included = body.entry?.find((e) => e.search?.mode === 'include');
    expect(included?.fullUrl).toBe(`${fhir.baseUrl}/Patient/${alice}`);
  });

  it('reverse-includes resources that reference the matches on the current page', async () => {
    const first = (await get(`/Observation?patient=${alice}&_count=2&_revinclude=Provenance:target`)).body;
    expect(first.total).toBe(OBS_PER_ALICE);
    expect(ids(first)).toHaveLength(2);
    expect(ids(first, 'include')).toHaveLength(1);
    expect(ids(first, 'include')[0]).toMatch(/^Provenance\//);
    // The Provenance targets only the first two Observations, so the next page includes nothing
    const second = (await get(nextLink(first) ?? '')).body;
    expect(ids(second, 'include')).toHaveLength(0);
    // and a Patient search can pull it in too
    const patient = (await get(`/Patient?_id=${alice}&_revinclude=Provenance:target`)).body;
    expect(ids(patient, 'include')).toEqual(ids(first, 'include'));
  });

  it('supports POST _search with a form body', async () => {
    const { status, body } = await get('/Observation/_search', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ patient: bob, _count: '5' }).toString(),
    });
    expect(status).toBe(200);
    expect(body.total).toBe(OBS_PER_BOB);
    expect(body.entry).toHaveLength(5);
    expect(new URL(nextLink(body) ?? '').searchParams.get('patient')).toBe(bob);
  });

  it('sorts with _sort and keeps a stable order otherwise', async () => {
    const sorted = (await get(`/Observation?patient=${alice}&_sort=-date&_count=1000`)).body;
    const dates = (sorted.entry ?? []).map((e) => (e.resource as { effectiveDateTime: string }).effectiveDateTime);
    expect(dates).toEqual([...dates].sort().reverse());
    const a = ids((await get('/Observation?_count=1000')).body);
    const b = ids((await get('/Observation?_count=1000')).body);
    expect(a).toEqual(b);
  });

  it('rejects unknown search parameters with 400, unless the client asks for lenient handling', async () => {
    const { status, body, type } = await get<OperationOutcome>('/Observation?not-a-param=1');
    expect(status).toBe(400);
    expect(type).toMatch(/^application\/fhir\+json/);
    expect(body.resourceType).toBe('OperationOutcome');
    expect(body.issue[0]?.diagnostics).toContain('not-a-param');
    const lenient = await get('/Observation?not-a-param=1&_count=0', { headers: { prefer: 'handling=lenient' } });
    expect(lenient.status).toBe(200);
    expect((await get('/Observation?subject.name=x')).status).toBe(400);
    expect((await get('/Observation?date=notadate')).status).toBe(400);
    expect((await get('/Observation?_count=abc')).status).toBe(400);
  });
});

describe('embedded FHIR server: read and other interactions', () => {
  it('reads a resource by id', async () => {
    const { status, body } = await get<Resource>(`/Patient/${alice}`);
    expect(status).toBe(200);
    expect(body.id).toBe(alice);
    expect(body.meta?.versionId).toBeTruthy();
    expect(body.meta?.lastUpdated).toBeTruthy();
    expect((await get<Resource>('/Patient/carol-1')).body.id).toBe('carol-1');
  });

  it('answers an unknown id with 404 and an OperationOutcome', async () => {
    const { status, body, type } = await get<OperationOutcome>('/Patient/does-not-exist');
    expect(status).toBe(404);
    expect(type).toMatch(/^application\/fhir\+json/);
    expect(body.resourceType).toBe('OperationOutcome');
    expect(body.issue[0]?.code).toBe('not-found');
  });

  it('answers an unknown resource type with 404 and an OperationOutcome', async () => {
    for (const path of ['/NotAType', '/NotAType/1']) {
      const { status, body } = await get<OperationOutcome>(path);
      expect(status).toBe(404);
      expect(body.resourceType).toBe('OperationOutcome');
    }
  });

  it('serves a CapabilityStatement at /metadata', async () => {
    const { status, body } = await get<{ resourceType: string; fhirVersion: string }>('/metadata');
    expect(status).toBe(200);
    expect(body.resourceType).toBe('CapabilityStatement');
    expect(body.fhirVersion).toBe('4.0.1');
  });

  it('refuses writes with 405 and an OperationOutcome', async () => {
    const attempts: [string, string][] = [
      ['POST', '/Patient'],
      ['PUT', `/Patient/${alice}`],
      ['DELETE', `/Patient/${alice}`],
      ['PATCH', `/Patient/${alice}`],
      ['POST', '/'],
    ];
    for (const [method, path] of attempts) {
      const { status, body, type } = await get<OperationOutcome>(path, { method, body: method === 'DELETE' ? undefined : '{}' });
      expect(status, `${method} ${path}`).toBe(405);
      expect(type).toMatch(/^application\/fhir\+json/);
      expect(body.resourceType).toBe('OperationOutcome');
    }
    expect((await get(`/Patient/${alice}`)).status).toBe(200);
  });
});
