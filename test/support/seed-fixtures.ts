/**
 * The generated seed data and small readers over it, shared by the seed-data tests.
 */
import type { Bundle, BundleEntry, Resource } from '@medplum/fhirtypes';
import { generateSyntheticBundles } from '../../src/embedded/seed/generate.ts';

export const bundles = generateSyntheticBundles();
export const [shared, ...patientBundles] = bundles as [Bundle, ...Bundle[]];

export const entriesOf = (bundle: Bundle): BundleEntry[] => bundle.entry ?? [];
export const resourcesOf = (bundle: Bundle): Resource[] => entriesOf(bundle).flatMap((e) => (e.resource ? [e.resource] : []));
export const allPatientResources = patientBundles.flatMap(resourcesOf);
export function ofType<K extends Resource['resourceType']>(type: K, resources: Resource[] = allPatientResources): Extract<Resource, { resourceType: K }>[] {
  return resources.filter((r): r is Extract<Resource, { resourceType: K }> => r.resourceType === type);
}
export const hasCoding = (concepts: { coding?: { system?: string; code?: string }[] }[] | undefined, system: string, code: string): boolean =>
  (concepts ?? []).some((c) => (c.coding ?? []).some((x) => x.system === system && x.code === code));

/** Every `reference` string anywhere inside a value. */
export function collectReferences(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) collectReferences(item, out);
  } else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === 'reference' && typeof child === 'string') out.push(child);
      else collectReferences(child, out);
    }
  }
  return out;
}
