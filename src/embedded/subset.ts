// _summary and _elements: return part of each resource, marked SUBSETTED as the spec requires.
import type { Resource } from '@medplum/fhirtypes';
import { tryGetDataType } from '@medplum/core';
import type { ParsedSearch } from './search-request.ts';

const SUBSETTED = { system: 'http://terminology.hl7.org/CodeSystem/v3-ObservationValue', code: 'SUBSETTED' };

/** Always kept: without them the result is not a usable resource. */
const ALWAYS_KEPT = new Set(['resourceType', 'id', 'meta']);

/**
 * The resource as the search asked for it. Returns the stored object itself when nothing is
 * removed (it is only serialized), or a shallow copy holding the kept top-level elements.
 */
export function subsetResource(resource: Resource, summary: ParsedSearch['summary'], elements: readonly string[] | undefined): Resource {
  let keep: (name: string) => boolean;
  if (summary === 'true' || summary === 'text') {
    const schema = tryGetDataType(resource.resourceType);
    const summaryProps = summary === 'text' ? new Set(['text']) : (schema?.summaryProperties ?? new Set<string>());
    const mandatory = schema?.mandatoryProperties ?? new Set<string>();
    keep = (name) => matchesProperty(name, summaryProps) || matchesProperty(name, mandatory);
  } else if (summary === 'data') {
    keep = (name) => name !== 'text';
  } else if (elements && elements.length > 0) {
    const wanted = new Set(elements);
    const mandatory = tryGetDataType(resource.resourceType)?.mandatoryProperties ?? new Set<string>();
    keep = (name) => matchesProperty(name, wanted) || matchesProperty(name, mandatory);
  } else {
    return resource;
  }

  const result: Record<string, unknown> = { resourceType: resource.resourceType };
  for (const [name, value] of Object.entries(resource)) {
    // `_gender` carries the extensions of primitive `gender` and goes wherever `gender` goes
    if (ALWAYS_KEPT.has(name) || keep(name.startsWith('_') ? name.slice(1) : name)) {
      result[name] = value;
    }
  }
  const meta = resource.meta ?? {};
  result.meta = { ...meta, tag: [...(meta.tag ?? []), SUBSETTED] };
  return result as unknown as Resource;
}

/** `valueQuantity` matches the choice element `value` (schemas list choice types without [x]). */
function matchesProperty(name: string, properties: ReadonlySet<string>): boolean {
  if (properties.has(name)) {
    return true;
  }
  for (let end = 1; end < name.length; end++) {
    const c = name.charAt(end);
    if (c >= 'A' && c <= 'Z' && properties.has(name.slice(0, end))) {
      return true;
    }
  }
  return false;
}
