// Loading data into the embedded FHIR server: transaction semantics, id assignment, reference
// rewriting, collection/NDJSON, and readDataDir's handling of files.
import type { Bundle, BundleEntry, DiagnosticReport, Encounter, Observation, Patient, Provenance, Resource } from '@medplum/fhirtypes';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureFhirDefinitions } from '../src/embedded/definitions.ts';
import { loadBundles, readDataDir } from '../src/embedded/load-data.ts';
import { IndexedMemoryRepository } from '../src/embedded/resource-store.ts';

beforeAll(() => {
  ensureFhirDefinitions();
});

const transaction = (...entry: BundleEntry[]): Bundle => ({ resourceType: 'Bundle', type: 'transaction', entry });
const post = (fullUrl: string, resource: Resource): BundleEntry => ({ fullUrl, request: { method: 'POST', url: resource.resourceType }, resource });
const put = (fullUrl: string, resource: Resource & { id: string }): BundleEntry => ({
  fullUrl,
  request: { method: 'PUT', url: `${resource.resourceType}/${resource.id}` },
  resource,
});

/** A patient with an encounter, an observation, a report that lists it, and a provenance. */
function patientRecord(tag: string): Bundle {
  return transaction(
    post(`urn:uuid:${tag}-pat`, { resourceType: 'Patient', id: 'client-chosen-id', name: [{ family: tag }] }),
    post(`urn:uuid:${tag}-enc`, { resourceType: 'Encounter', status: 'finished', class: { code: 'AMB' }, subject: { reference: `urn:uuid:${tag}-pat` } }),
    post(`urn:uuid:${tag}-obs`, {
      resourceType: 'Observation',
      status: 'final',
      code: { text: 'x' },
      subject: { reference: `urn:uuid:${tag}-pat` },
      encounter: { reference: `urn:uuid:${tag}-enc` },
      meta: { lastUpdated: '1999-01-01T00:00:00Z', versionId: 'old' },
    }),
    post(`urn:uuid:${tag}-rep`, {
      resourceType: 'DiagnosticReport',
      status: 'final',
      code: { text: 'r' },
      subject: { reference: `urn:uuid:${tag}-pat` },
      result: [{ reference: `urn:uuid:${tag}-obs` }],
      contained: [{ resourceType: 'Observation', id: 'c1', status: 'final', code: { text: 'c' }, subject: { reference: `urn:uuid:${tag}-pat` } }],
      extension: [{ url: 'http://example.org/x', valueReference: { reference: `urn:uuid:${tag}-enc` } }],
    }),
    post(`urn:uuid:${tag}-prov`, {
      resourceType: 'Provenance',
      recorded: '2020-01-01T00:00:00Z',
      agent: [{ who: { display: 'x' } }],
      target: [{ reference: `urn:uuid:${tag}-obs` }, { reference: `urn:uuid:${tag}-rep` }, { reference: `urn:uuid:${tag}-pat` }],
    }),
  );
}

function read<T = Record<string, unknown>>(store: IndexedMemoryRepository, type: string, id: string): T {
  const resource = store.getStored(type, id);
  expect(resource, `${type}/${id}`).toBeDefined();
  return resource as unknown as T;
}

describe('loadBundles: transactions', () => {
  it('assigns numeric ids per type in load order and rewrites urn:uuid references everywhere', async () => {
    const store = new IndexedMemoryRepository();
    const summary = await loadBundles(store, [patientRecord('a'), patientRecord('b')]);
    expect(summary).toEqual({ Patient: 2, Encounter: 2, Observation: 2, DiagnosticReport: 2, Provenance: 2 });

    // POST ignores the client's resource.id
    expect(store.has('Patient', 'client-chosen-id')).toBe(false);
    const report = read<DiagnosticReport>(store, 'DiagnosticReport', '2');
    expect(report.subject?.reference).toBe('Patient/2');
    expect(report.result?.[0]?.reference).toBe('Observation/2');
    expect((report.contained?.[0] as Observation | undefined)?.subject?.reference).toBe('Patient/2');
    expect(report.extension?.[0]?.valueReference?.reference).toBe('Encounter/2');
    expect(read<Observation>(store, 'Observation', '1').encounter?.reference).toBe('Encounter/1');
    expect(read<Provenance>(store, 'Provenance', '1').target.map((t) => t.reference)).toEqual(['Observation/1', 'DiagnosticReport/1', 'Patient/1']);
    const all = JSON.stringify(
      [...['Patient', 'Encounter', 'Observation', 'DiagnosticReport', 'Provenance']].flatMap((t) => [read(store, t, '1'), read(store, t, '2')]),
    );
    expect(all).not.toContain('urn:uuid:');
  });

  it('lets the server own meta.versionId and meta.lastUpdated', async () => {
    const store = new IndexedMemoryRepository();
    await loadBundles(store, [patientRecord('a')]);
    const obs = read<Resource>(store, 'Observation', '1');
    expect(obs.meta?.versionId).toBeTruthy();
    expect(obs.meta?.versionId).not.toBe('old');
    expect(obs.meta?.lastUpdated).not.toBe('1999-01-01T00:00:00Z');
    expect(Date.parse(obs.meta?.lastUpdated ?? '')).toBeGreaterThan(Date.now() - 60_000);
  });

  it('keeps PUT ids, points references to their fullUrl at Type/id, and numbers POSTs around them', async () => {
    const store = new IndexedMemoryRepository();
    await loadBundles(store, [
      transaction(
        post('urn:uuid:new-pat', { resourceType: 'Patient', name: [{ family: 'New' }] }),
        put('urn:uuid:kept', { resourceType: 'Patient', id: '1', name: [{ family: 'Kept' }] }),
        put('http://example.org/fhir/Encounter/enc-x', {
          resourceType: 'Encounter',
          id: 'enc-x',
          status: 'finished',
          class: { code: 'AMB' },
          subject: { reference: 'urn:uuid:kept' },
        }),
        post('urn:uuid:obs', {
          resourceType: 'Observation',
          status: 'final',
          code: { text: 'x' },
          subject: { reference: 'urn:uuid:new-pat' },
          encounter: { reference: 'http://example.org/fhir/Encounter/enc-x' },
          focus: [{ reference: 'urn:uuid:kept' }],
        }),
      ),
    ]);
    expect(read<Patient>(store, 'Patient', '1').name?.[0]?.family).toBe('Kept');
    expect(read<Patient>(store, 'Patient', '2').name?.[0]?.family).toBe('New'); // 1 was taken by the PUT
    expect(read<Encounter>(store, 'Encounter', 'enc-x').subject?.reference).toBe('Patient/1');
    const obs = read<Observation>(store, 'Observation', '1');
    expect(obs.subject?.reference).toBe('Patient/2');
    expect(obs.encounter?.reference).toBe('Encounter/enc-x');
    expect(obs.focus?.[0]?.reference).toBe('Patient/1');
  });

  it('gives the same ids when the same data is loaded into a fresh server', async () => {
    const load = async () => {
      const store = new IndexedMemoryRepository();
      await loadBundles(store, [patientRecord('a'), patientRecord('b')]);
      return JSON.stringify(store.getSortedIds('Observation').map((id) => read<Observation>(store, 'Observation', id).subject));
    };
    expect(await load()).toBe(await load());
  });

  it('writes nothing from a bundle with an invalid entry', async () => {
    const store = new IndexedMemoryRepository();
    const bad = patientRecord('a');
    bad.entry?.push({ request: { method: 'DELETE', url: 'Patient/1' } });
    await expect(loadBundles(store, [bad])).rejects.toThrow(/entry 5/);
    expect(store.countByType()).toEqual({});
    const mismatch = transaction(put('urn:uuid:x', { resourceType: 'Patient', id: 'a' }));
    mismatch.entry![0]!.request!.url = 'Patient/b';
    await expect(loadBundles(store, [mismatch])).rejects.toThrow(/differs from PUT url/);
  });

  it('reuses an existing resource for a conditional create when asked to', async () => {
    const store = new IndexedMemoryRepository();
    const org = (fullUrl: string): BundleEntry => ({
      fullUrl,
      request: { method: 'POST', url: 'Organization', ifNoneExist: 'identifier=http://example.org|org-1' },
      resource: { resourceType: 'Organization', identifier: [{ system: 'http://example.org', value: 'org-1' }] },
    });
    const findExisting = (type: string, query: string) =>
      type === 'Organization' && query === 'identifier=http://example.org|org-1' ? store.getSortedIds('Organization').slice(0, 1) : [];
    await loadBundles(store, [transaction(org('urn:uuid:o1'))], { findExisting });
    const second = transaction(org('urn:uuid:o2'), post('urn:uuid:p', { resourceType: 'Patient', managingOrganization: { reference: 'urn:uuid:o2' } }));
    const summary = await loadBundles(store, [second], { findExisting });
    expect(summary).toEqual({ Patient: 1 });
    expect(read<Patient>(store, 'Patient', '1').managingOrganization?.reference).toBe('Organization/1');
  });
});

describe('loadBundles: collections and NDJSON', () => {
  it('keeps ids that resources have and numbers those without', async () => {
    const store = new IndexedMemoryRepository();
    await loadBundles(store, [
      {
        resourceType: 'Bundle',
        type: 'collection',
        entry: [
          { fullUrl: 'urn:uuid:p', resource: { resourceType: 'Patient' } },
          { resource: { resourceType: 'Patient', id: 'p-9' } },
          { resource: { resourceType: 'Observation', status: 'final', code: { text: 'x' }, subject: { reference: 'urn:uuid:p' } } },
        ],
      },
    ]);
    expect(store.getSortedIds('Patient')).toEqual(['1', 'p-9']);
    expect(read<Observation>(store, 'Observation', '1').subject?.reference).toBe('Patient/1');
  });
});

describe('readDataDir', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('reads JSON Bundles and NDJSON files in name order', async () => {
    dir = await mkdtemp(join(tmpdir(), 'embedded-fhir-'));
    await writeFile(join(dir, 'b.json'), JSON.stringify(patientRecord('b')));
    await writeFile(join(dir, 'a.ndjson'), '{"resourceType":"Patient","id":"nd-1"}\n\n{"resourceType":"Patient"}\n');
    await writeFile(join(dir, 'notes.txt'), 'ignored');
    const bundles = await readDataDir(dir);
    expect(bundles.map((b) => b.type)).toEqual(['collection', 'transaction']);
    const store = new IndexedMemoryRepository();
    expect(await loadBundles(store, bundles)).toMatchObject({ Patient: 3, Observation: 1 });
    expect(store.getSortedIds('Patient')).toEqual(['1', '2', 'nd-1']);
  });

  it('names the file that cannot be read', async () => {
    dir = await mkdtemp(join(tmpdir(), 'embedded-fhir-'));
    await writeFile(join(dir, 'broken.json'), '{ "resourceType": "Bundle", ');
    await expect(readDataDir(dir)).rejects.toThrow(/broken\.json/);
    await rm(join(dir, 'broken.json'));
    await writeFile(join(dir, 'patient.json'), '{"resourceType":"Patient"}');
    await expect(readDataDir(dir)).rejects.toThrow(/patient\.json.*not a FHIR/);
    await rm(join(dir, 'patient.json'));
    await writeFile(join(dir, 'lines.ndjson'), '{"resourceType":"Patient"}\nnot json\n');
    await expect(readDataDir(dir)).rejects.toThrow(/lines\.ndjson:2/);
    await rm(join(dir, 'lines.ndjson'));
    // a file that parses but has a bad entry is named when it is loaded
    await writeFile(
      join(dir, 'bad-entry.json'),
      JSON.stringify(transaction({ request: { method: 'GET', url: 'Patient' }, resource: { resourceType: 'Patient' } })),
    );
    const bundles = await readDataDir(dir);
    await expect(loadBundles(new IndexedMemoryRepository(), bundles)).rejects.toThrow(/bad-entry\.json/);
  });
});
