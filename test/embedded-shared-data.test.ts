// The embedded server loaded with the real synthetic records in ../shared/data (Synthea and Inferno
// transaction bundles). That folder is not part of the repository: without it the suite is one
// skipped test, reported with the reason.
import type { Bundle, Resource } from '@medplum/fhirtypes';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EmbeddedFhir } from '../src/embedded/fhir-server.ts';
import { startEmbeddedFhir } from '../src/embedded/fhir-server.ts';
import { readDataDir } from '../src/embedded/load-data.ts';
import { describeUnless } from './support/describe-unless.ts';

const dataDir = fileURLToPath(new URL('../../shared/data', import.meta.url));
const withData = describeUnless(existsSync(dataDir) ? undefined : `${dataDir} does not exist (the shared sample data is not in the repository)`);

withData('embedded FHIR server with ../shared/data', () => {
  let fhir: EmbeddedFhir;
  let sourceBundles: Bundle[];

  beforeAll(async () => {
    fhir = await startEmbeddedFhir({ port: 0 });
    sourceBundles = await readDataDir(dataDir);
    await fhir.load(sourceBundles);
  });

  afterAll(async () => {
    await fhir?.close();
  });

  async function searchAll(query: string): Promise<Resource[]> {
    const found: Resource[] = [];
    let url: string | undefined = `${fhir.baseUrl}/${query}`;
    while (url) {
      const res: Response = await fetch(url);
      expect(res.status, url).toBe(200);
      const page = (await res.json()) as Bundle;
      found.push(...(page.entry ?? []).filter((e) => e.search?.mode === 'match').map((e) => e.resource as Resource));
      url = page.link?.find((l) => l.relation === 'next')?.url;
    }
    return found;
  }

  it('finds each Patient’s Observations by patient=<bare id>, as many as its file holds', async () => {
    const patients = await searchAll('Patient?_count=100');
    expect(patients).toHaveLength(sourceBundles.length);
    // Each file holds one patient: match them by the Patient's identifier values
    const observationsInFile = new Map<string, number>();
    for (const bundle of sourceBundles) {
      const entries = bundle.entry ?? [];
      const patient = entries.find((e) => e.resource?.resourceType === 'Patient')?.resource;
      const key = JSON.stringify((patient as { identifier?: unknown })?.identifier ?? null);
      observationsInFile.set(key, entries.filter((e) => e.resource?.resourceType === 'Observation').length);
    }
    for (const patient of patients) {
      const key = JSON.stringify((patient as { identifier?: unknown }).identifier ?? null);
      const observations = await searchAll(`Observation?patient=${patient.id}&_count=100`);
      expect(observations.length, `Patient/${patient.id}`).toBe(observationsInFile.get(key));
      for (const obs of observations) {
        expect((obs as { subject?: { reference?: string } }).subject?.reference).toBe(`Patient/${patient.id}`);
      }
    }
  });

  it('leaves no urn:uuid reference behind and keeps the PUT ids', async () => {
    for (const type of ['Encounter', 'DiagnosticReport', 'Provenance', 'MedicationRequest']) {
      const resources = await searchAll(`${type}?_count=1000`);
      expect(resources.length, type).toBeGreaterThan(0);
      expect(JSON.stringify(resources)).not.toContain('"reference":"urn:uuid:');
    }
    expect((await fetch(`${fhir.baseUrl}/Patient/85`)).status).toBe(200);
    expect((await fetch(`${fhir.baseUrl}/Encounter/pdex-Encounter`)).status).toBe(200);
  });

  it('reverse-includes the Provenance that targets a Synthea patient’s Observations', async () => {
    const res = await fetch(`${fhir.baseUrl}/Observation?patient=1&_count=5&_revinclude=Provenance:target`);
    const page = (await res.json()) as Bundle;
    const included = (page.entry ?? []).filter((e) => e.search?.mode === 'include');
    expect(included.map((e) => e.resource?.resourceType)).toEqual(['Provenance']);
  });

  it('includes each Encounter’s patient once', async () => {
    const res = await fetch(`${fhir.baseUrl}/Encounter?patient=85&_include=Encounter:patient&_count=20`);
    const page = (await res.json()) as Bundle;
    const included = (page.entry ?? []).filter((e) => e.search?.mode === 'include');
    expect(included.map((e) => e.fullUrl)).toEqual([`${fhir.baseUrl}/Patient/85`]);
    expect(page.total).toBeGreaterThan(20);
  });
});
