/**
 * What every mapper is: one legacy payload shape, the function that builds it from a FHIR
 * resource, and the valibot schema its output must satisfy (tests check every response against it).
 */
import type * as v from 'valibot';
import type { FhirResource } from '../src/fhir/primitives.ts';
import { displayName, isObject, normalizeReference, object, personName, referenceOf, text, type Json } from './fhir-values.ts';
import { UTC_LEGACY_TIME, type LegacyTime } from './legacy-time.ts';

/** Lookups over the resources that came in the same upstream answer (`_include` / `_revinclude`). */
export interface MapContext {
  /** The resource a reference points to, when the upstream answer carried it. */
  resolve(reference: unknown): FhirResource | undefined;
  /** The carried resources of `type` that hold a reference to `target` (`Type/id`) anywhere. */
  referencing(type: string, target: string): FhirResource[];
  /** The old system's forms of time, in the site's time zone. */
  readonly time: LegacyTime;
}

export interface LegacyShape {
  /** Name used in schemas, OpenAPI and test reports, e.g. `DiagnosticReport`. */
  readonly name: string;
  /** The legacy payload of one record; strict, so an unexpected key fails the contract tests. */
  readonly schema: v.GenericSchema;
  map(resource: FhirResource, context: MapContext): Json;
  /**
   * The kind has no id in the legacy payload at all, searched or read by id (AllergyIntolerance,
   * Immunization): its `full_url` names the empty id, `/AllergyIntolerance/` (../shared/LEGACY-WIRE.md).
   */
  readonly withoutId?: true;
}

/** Defines a legacy shape; a function so each mapper file reads as one declaration. */
export function defineShape(shape: LegacyShape): LegacyShape {
  return shape;
}

/**
 * `{reference, display}` for a Reference: the display as written, else the name of the resource it
 * points to when the upstream answer carried it (`_include`), else `null`.
 */
export function namedReference(value: unknown, context: MapContext): Json | undefined {
  const reference = referenceOf(value);
  if (!reference) return undefined;
  return { reference, display: text(object(value)?.display) ?? displayName(context.resolve(reference)) ?? null };
}

/**
 * `{reference, display}` of a record's patient (`subject`), the display as the old system writes it
 * (../shared/LEGACY-WIRE.md): the patient's name `Given Family` from the Patient the upstream answer
 * carried, else the display written on the reference, else `" "`, the old system's form for a
 * patient without a name. Never `null` or `""`.
 */
export function patientReference(value: unknown, context: MapContext): Json | undefined {
  const reference = referenceOf(value);
  return reference ? { reference, display: patientName(value, context, ' ') } : undefined;
}

/** A patient's name for the legacy payloads, parts joined by `separator` (`' '`, or AllergyIntolerance's `', '`). */
export function patientName(value: unknown, context: MapContext, separator: string): string {
  const patient = context.resolve(referenceOf(value));
  if (patient) return personName(patient.name, separator) ?? text(patient.name) ?? separator;
  return text(object(value)?.display) ?? separator;
}

/** What `referencing` answers when nothing names the target (shared: callers only read it). */
const NONE: FhirResource[] = [];

/** Builds the MapContext for one upstream answer: every resource indexed by `Type/id` and by what it references. */
export function createMapContext(resources: readonly FhirResource[], time: LegacyTime = UTC_LEGACY_TIME): MapContext {
  const byReference = new Map<string, FhirResource>();
  // Resource type → target → the resources of that type naming it: no key string built per lookup.
  const referencers = new Map<string, Map<string, FhirResource[]>>();
  for (const resource of resources) {
    if (resource.id) byReference.set(`${resource.resourceType}/${resource.id}`, resource);
  }
  // Indexed lazily: most routes never ask who references whom.
  let indexed = false;
  const indexReferencers = (): void => {
    for (const resource of resources) {
      let ofType = referencers.get(resource.resourceType);
      if (ofType === undefined) {
        ofType = new Map();
        referencers.set(resource.resourceType, ofType);
      }
      for (const target of referencesIn(resource)) {
        const list = ofType.get(target);
        if (list === undefined) ofType.set(target, [resource]);
        // Each resource once per target, however often it names it (it was added last if at all).
        else if (list[list.length - 1] !== resource) list.push(resource);
      }
    }
    indexed = true;
  };
  return {
    time,
    resolve(reference) {
      const ref = typeof reference === 'string' ? normalizeReference(reference) : undefined;
      return ref ? byReference.get(ref) : undefined;
    },
    referencing(type, target) {
      if (!indexed) indexReferencers();
      return referencers.get(type)?.get(target) ?? NONE;
    },
  };
}

/**
 * Every `reference` string inside a resource, normalized to `Type/id` (repeats included). Walked
 * with an explicit stack: an upstream body nested deeper than the call stack must not crash the
 * request. Plain loops (no entries arrays, no spreads): every resource of an answer passes here.
 */
function referencesIn(resource: unknown): string[] {
  const found: string[] = [];
  const pending: unknown[] = [resource];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) {
      for (let at = value.length - 1; at >= 0; at -= 1) pending.push(value[at]);
    } else if (isObject(value)) {
      // for…in over a JSON object: its own members, as Object.entries (JSON.parse makes no inherited enumerable ones).
      for (const key in value) {
        const member = value[key];
        if (key === 'reference') {
          const ref = normalizeReference(member);
          if (ref) found.push(ref);
        } else if (typeof member === 'object' && member !== null) {
          pending.push(member);
        }
      }
    }
  }
  return found;
}
