/**
 * The generated seed data: deterministic, well-formed transaction bundles whose references resolve.
 */
import { describe, expect, it } from 'vitest';
import { generateSyntheticBundles } from '../src/embedded/seed/generate.ts';
import { bundles, shared, patientBundles, entriesOf, resourcesOf, ofType, collectReferences } from './support/seed-fixtures.ts';

describe('generateSyntheticBundles: determinism', () => {
  it('gives byte-identical output for the same options', () => {
    const options = { patients: 3, seed: 7, years: 2 };
    expect(JSON.stringify(generateSyntheticBundles(options))).toBe(JSON.stringify(generateSyntheticBundles(options)));
  });

  it('the defaults are stable too', () => {
    expect(JSON.stringify(generateSyntheticBundles())).toBe(JSON.stringify(bundles));
  });

  it('gives different output for a different seed', () => {
    const a = JSON.stringify(generateSyntheticBundles({ patients: 2, seed: 1, years: 2 }));
    const b = JSON.stringify(generateSyntheticBundles({ patients: 2, seed: 2, years: 2 }));
    expect(a).not.toBe(b);
  });

  it('patient N does not depend on how many patients are generated', () => {
    const small = generateSyntheticBundles({ patients: 2, years: 2 });
    const large = generateSyntheticBundles({ patients: 4, years: 2 });
    expect(JSON.stringify(large.slice(0, 3))).toBe(JSON.stringify(small));
  });

  it('never reaches past endDate', () => {
    const stamps = JSON.stringify(patientBundles).match(/\d{4}-\d{2}-\d{2}T[0-9:.]+[+-]\d{2}:\d{2}/g) ?? [];
    expect(stamps.length).toBeGreaterThan(1000);
    for (const stamp of stamps) expect(stamp.slice(0, 10) <= '2025-12-31').toBe(true);
  });
});

describe('generateSyntheticBundles: bundle shape', () => {
  it('returns the shared directory first, then one bundle per patient', () => {
    expect(bundles).toHaveLength(7);
    for (const bundle of bundles) expect(bundle).toMatchObject({ resourceType: 'Bundle', type: 'transaction' });
    expect(generateSyntheticBundles({ patients: 2, years: 1 })).toHaveLength(3);
  });

  it('shared directory: PUT entries with fixed ids for 2 organizations, 2 locations, 3 practitioners', () => {
    const urls = entriesOf(shared).map((e) => `${e.request?.method} ${e.request?.url}`);
    const expected = [
      'Organization/org-1',
      'Organization/org-2',
      'Location/loc-1',
      'Location/loc-2',
      'Practitioner/pract-1',
      'Practitioner/pract-2',
      'Practitioner/pract-3',
    ];
    expect(urls).toEqual(expected.map((url) => `PUT ${url}`));
    for (const e of entriesOf(shared)) expect(e.request?.url).toBe(`${e.resource?.resourceType}/${e.resource?.id}`);
    for (const location of ofType('Location', resourcesOf(shared))) expect(location.name).toBeTruthy();
    for (const p of ofType('Practitioner', resourcesOf(shared))) {
      expect(p.identifier?.[0]).toMatchObject({ system: 'http://hl7.org/fhir/sid/us-npi', value: expect.stringMatching(/^\d{10}$/) });
      expect(p.name?.[0]).toMatchObject({ family: expect.any(String), given: [expect.any(String)] });
      expect(p.telecom?.[0]).toMatchObject({ system: expect.any(String), value: expect.any(String), use: expect.any(String) });
      expect(p.address?.[0]).toMatchObject({
        line: [expect.any(String)],
        postalCode: expect.any(String),
        city: expect.any(String),
        state: expect.any(String),
        country: expect.any(String),
        period: { start: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) },
      });
    }
  });

  it('patient bundles: POST entries with unique urn:uuid fullUrls and a Patient first', () => {
    for (const bundle of patientBundles) {
      const entries = entriesOf(bundle);
      expect(entries[0]?.resource?.resourceType).toBe('Patient');
      const fullUrls = entries.map((e) => e.fullUrl);
      expect(new Set(fullUrls).size).toBe(entries.length);
      for (const e of entries) {
        expect(e.fullUrl).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(e.request).toEqual({ method: 'POST', url: e.resource?.resourceType });
        expect(e.resource?.id).toBeUndefined();
      }
    }
  });

  it('has a few hundred to a thousand resources per patient', () => {
    for (const bundle of patientBundles) {
      expect(entriesOf(bundle).length).toBeGreaterThan(300);
      expect(entriesOf(bundle).length).toBeLessThan(1500);
    }
  });
});

describe('generateSyntheticBundles: references', () => {
  const sharedIds = new Set(resourcesOf(shared).map((r) => `${r.resourceType}/${r.id}`));

  it('every urn:uuid reference resolves to a fullUrl in the same bundle', () => {
    for (const bundle of patientBundles) {
      const fullUrls = new Set(entriesOf(bundle).map((e) => e.fullUrl));
      const refs = collectReferences(bundle).filter((r) => r.startsWith('urn:uuid:'));
      expect(refs.length).toBeGreaterThan(100);
      const dangling = refs.filter((r) => !fullUrls.has(r));
      expect(dangling).toEqual([]);
    }
  });

  it('every Practitioner/Organization/Location reference points into the shared bundle, and there are no other forms', () => {
    for (const bundle of [shared, ...patientBundles]) {
      for (const ref of collectReferences(bundle)) {
        if (ref.startsWith('urn:uuid:')) continue;
        expect(ref).toMatch(/^(Practitioner|Organization|Location)\//);
        expect(sharedIds.has(ref), ref).toBe(true);
      }
    }
  });
});
