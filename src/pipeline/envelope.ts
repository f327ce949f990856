/**
 * Wraps mapped records the way each legacy operation returns them (spec 2.1, 2.10, 2.14).
 */
import type { Json } from '../fhir/primitives.ts';
import type { BundleType } from '../route-types.ts';

/** One mapped record with the resource type and id its `full_url` is made of. */
export interface MappedEntry {
  resourceType: string;
  id: string;
  resource: Json;
}

/** The legacy search Bundle; `total` counts every entry, included Provenance too (spec 2.12). */
export function legacyBundle(type: BundleType, entries: readonly MappedEntry[], bundleId: string): Json {
  return {
    resourceType: 'Bundle',
    id: bundleId,
    type,
    entry: entries.map((entry) => ({ full_url: `/${entry.resourceType}/${entry.id}`, resource: entry.resource })),
    total: entries.length,
  };
}
