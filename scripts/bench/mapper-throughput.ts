/**
 * Mapper throughput: each legacy shape mapping realistic FHIR resources from the generated patients,
 * in resources per second, with the included resources its route brings as context.
 */
import type { Bundle, Resource } from '@medplum/fhirtypes';
import { createMapContext, type LegacyShape } from '../../mappers/legacy-shape.ts';
import { generateSyntheticBundles } from '../../src/embedded/seed/generate.ts';
import { ROUTES } from '../../src/routes.ts';
import { DEFAULT_SITE_CODES } from '../../src/site-codes.ts';
import type { FhirResource } from '../../src/upstream/fhir-client.ts';

export interface MapperFigure {
  shape: string;
  resourceType: string;
  resourcesPerSecond: number;
}

/**
 * The resources as a FHIR server stores them: each with an id, every `urn:uuid:` reference rewritten
 * to `Type/id`, so the mappers' lookups of included resources find what they would in production.
 */
export function asStored(bundles: Bundle[]): FhirResource[] {
  const entries = bundles.flatMap((bundle) => bundle.entry ?? []).filter((entry) => entry.resource !== undefined);
  const ids = new Map<string, string>();
  entries.forEach((entry, index) => {
    const resource = entry.resource as Resource;
    if (entry.fullUrl) ids.set(entry.fullUrl, `${resource.resourceType}/${resource.id ?? index + 1}`);
  });
  return entries.map((entry, index) => {
    const text = JSON.stringify({ ...entry.resource, id: entry.resource?.id ?? String(index + 1) });
    return JSON.parse(text.replace(/"urn:uuid:[0-9a-f-]+"/g, (urn) => JSON.stringify(ids.get(urn.slice(1, -1)) ?? urn.slice(1, -1)))) as FhirResource;
  });
}

/**
 * Each shape over its records, after a warm-up (compilation is not mapping), the best of five
 * windows (this machine is shared: the others' work only slows a window down). The context's index of
 * who references whom is built once per answer, before any shape asks it: measured as its own row,
 * so that it is not charged to whichever shape happens to ask first (it was: Encounter's).
 */
export function measureMappers(minMs = 400): MapperFigure[] {
  const resources = asStored(generateSyntheticBundles({ patients: 3 }));
  const figures: MapperFigure[] = [contextFigure(resources, minMs)];
  const context = createMapContext(resources);
  context.referencing('', '');
  const shapes = new Map<string, { shape: LegacyShape; resourceType: string; filter?: (r: FhirResource) => boolean }>();
  for (const route of ROUTES) {
    const code = route.upstream.select === undefined ? undefined : DEFAULT_SITE_CODES[route.upstream.select];
    const filter = code ? (r: FhirResource) => JSON.stringify(r.category ?? []).includes(`"${code}"`) : undefined;
    shapes.set(route.shape.name, { shape: route.shape, resourceType: route.upstream.resourceType, filter });
    if (route.kind === 'search') for (const shape of Object.values(route.includedEntries ?? {})) shapes.set(shape.name, { shape, resourceType: shape.name });
  }
  for (const { shape, resourceType, filter } of shapes.values()) {
    const input = resources.filter((r) => r.resourceType === resourceType && (filter?.(r) ?? true));
    if (input.length === 0) continue;
    const warm = performance.now();
    while (performance.now() - warm < minMs / 8) for (const resource of input) shape.map(resource, context);
    figures.push({
      shape: shape.name,
      resourceType,
      resourcesPerSecond: bestRate(minMs, () => {
        for (const resource of input) shape.map(resource, context);
        return input.length;
      }),
    });
  }
  return figures;
}

/** Windows a figure is measured in: the best is kept, as the machine's other work only ever slows one down. */
const WINDOWS = 5;

/** The best rate of `work` (which returns how many it did) over WINDOWS windows sharing `minMs`. */
function bestRate(minMs: number, work: () => number): number {
  let best = 0;
  for (let window = 0; window < WINDOWS; window += 1) {
    let done = 0;
    const started = performance.now();
    while (performance.now() - started < minMs / WINDOWS) done += work();
    best = Math.max(best, done / ((performance.now() - started) / 1000));
  }
  return Math.round(best);
}

/** Building an answer's MapContext with its index of references (what `referencing` reads), in resources per second. */
function contextFigure(resources: FhirResource[], minMs: number): MapperFigure {
  const rate = bestRate(minMs, () => {
    createMapContext(resources).referencing('', '');
    return resources.length;
  });
  return { shape: '(MapContext: the index of references)', resourceType: 'every type', resourcesPerSecond: rate };
}
