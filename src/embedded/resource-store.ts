// Storage for the embedded FHIR server: Medplum's MemoryRepository (which stamps meta.versionId
// and meta.lastUpdated and keeps history) plus the indexes a search needs to avoid linear scans.
import type { Resource } from '@medplum/fhirtypes';
import type { WithId } from '@medplum/core';
import { evalFhirPathTyped, toTypedValue } from '@medplum/core';
import { MemoryRepository } from '@medplum/fhir-router';
import { getParsedExpression, getSearchParam } from './definitions.ts';

/** Stored resources are shared with readers and serialized as-is: never mutate them. */
export type StoredResource = WithId<Resource>;

/** Reference string → ids of the resources (of one type) that hold it in one search parameter. */
type ReferenceIndex = Map<string, Set<string>>;

/**
 * A MemoryRepository that also keeps, per resource type, a map of the current resources, their ids
 * in a stable order, and (built lazily) an index per reference search parameter.
 *
 * MemoryRepository's own search is a linear scan that deep-clones every match, and its resource
 * map is private. The reference index is what keeps patient-scoped searches (`patient=`,
 * `subject=`) and `_revinclude` proportional to the result size, not to the store size.
 */
export class IndexedMemoryRepository extends MemoryRepository {
  private readonly byType = new Map<string, Map<string, StoredResource>>();
  private readonly sortedIds = new Map<string, string[]>();
  private readonly referenceIndexes = new Map<string, ReferenceIndex>();

  override async createResource<T extends Resource>(resource: T): Promise<WithId<T>> {
    const stored = await super.createResource(resource);
    // super returns a deep clone of what it stored; keep that clone as the read-only search copy
    this.track(stored);
    return stored;
  }

  override async deleteResource(resourceType: string, id: string): Promise<void> {
    await super.deleteResource(resourceType, id);
    this.byType.get(resourceType)?.delete(id);
    this.invalidate(resourceType, true);
  }

  override clear(): void {
    super.clear();
    this.byType.clear();
    this.sortedIds.clear();
    this.referenceIndexes.clear();
  }

  private track(resource: StoredResource): void {
    let resources = this.byType.get(resource.resourceType);
    if (!resources) {
      resources = new Map();
      this.byType.set(resource.resourceType, resources);
    }
    const isNew = !resources.has(resource.id);
    resources.set(resource.id, resource);
    this.invalidate(resource.resourceType, isNew);
  }

  // Writes happen in bulk while loading and searches afterwards, so indexes are simply dropped
  // on write and rebuilt on the next search that needs them.
  private invalidate(resourceType: string, idsChanged: boolean): void {
    if (idsChanged) {
      this.sortedIds.delete(resourceType);
    }
    const prefix = `${resourceType}:`;
    for (const key of this.referenceIndexes.keys()) {
      if (key.startsWith(prefix)) {
        this.referenceIndexes.delete(key);
      }
    }
  }

  /** The current version of a resource, without copying (do not mutate), or undefined. */
  getStored(resourceType: string, id: string): StoredResource | undefined {
    return this.byType.get(resourceType)?.get(id);
  }

  /** True when a resource with this type and id exists. */
  has(resourceType: string, id: string): boolean {
    return this.byType.get(resourceType)?.has(id) ?? false;
  }

  /** Number of resources of each type currently stored. */
  countByType(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const [type, resources] of this.byType) {
      if (resources.size > 0) {
        counts[type] = resources.size;
      }
    }
    return counts;
  }

  /** All ids of a type in the server's stable result order (see {@link compareIds}). */
  getSortedIds(resourceType: string): readonly string[] {
    let ids = this.sortedIds.get(resourceType);
    if (!ids) {
      ids = [...(this.byType.get(resourceType)?.keys() ?? [])].sort(compareIds);
      this.sortedIds.set(resourceType, ids);
    }
    return ids;
  }

  /**
   * Ids of `resourceType` resources whose reference search parameter `code` points at any of
   * `references` (each `Type/id` or a literal URL).
   */
  findReferencing(resourceType: string, code: string, references: Iterable<string>): Set<string> {
    const index = this.getReferenceIndex(resourceType, code);
    const result = new Set<string>();
    for (const reference of references) {
      for (const id of index.get(reference) ?? []) {
        result.add(id);
      }
    }
    return result;
  }

  /** Builds the index for one reference parameter now, so the first search does not pay for it. */
  prepareReferenceIndex(resourceType: string, code: string): void {
    this.getReferenceIndex(resourceType, code);
  }

  private getReferenceIndex(resourceType: string, code: string): ReferenceIndex {
    const key = `${resourceType}:${code}`;
    let index = this.referenceIndexes.get(key);
    if (!index) {
      index = new Map();
      for (const resource of this.byType.get(resourceType)?.values() ?? []) {
        for (const reference of referencesOf(resource, code)) {
          let ids = index.get(reference);
          if (!ids) {
            ids = new Set();
            index.set(reference, ids);
          }
          ids.add(resource.id);
        }
      }
      this.referenceIndexes.set(key, index);
    }
    return index;
  }
}

/**
 * The references a resource holds in one of its reference search parameters, as `Type/id` (a
 * version suffix dropped) or the literal reference text. Identifier-only references are skipped.
 */
export function referencesOf(resource: Resource, code: string): string[] {
  const param = getSearchParam(resource.resourceType, code);
  const atom = param && getParsedExpression(param);
  if (!atom) {
    return [];
  }
  const result: string[] = [];
  for (const { value } of evalFhirPathTyped(atom, [toTypedValue(resource)])) {
    let reference: unknown;
    if (typeof value === 'string') {
      reference = value; // canonical-typed parameters
    } else if (value && typeof value === 'object') {
      const obj = value as { reference?: unknown; resourceType?: unknown; id?: unknown };
      reference = obj.reference ?? (obj.resourceType && obj.id ? `${obj.resourceType}/${obj.id}` : undefined);
    }
    if (typeof reference === 'string' && reference) {
      result.push(stripHistory(reference));
    }
  }
  return result;
}

function stripHistory(reference: string): string {
  const at = reference.indexOf('/_history/');
  return at >= 0 ? reference.slice(0, at) : reference;
}

/**
 * The server's stable order for ids: numeric ids numerically (shorter first, then by text),
 * before any non-numeric id, which sort by code point. Paging relies on this never changing.
 */
export function compareIds(a: string, b: string): number {
  const aNumeric = /^\d+$/.test(a);
  const bNumeric = /^\d+$/.test(b);
  if (aNumeric !== bNumeric) {
    return aNumeric ? -1 : 1;
  }
  if (aNumeric && a.length !== b.length) {
    return a.length - b.length;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}
