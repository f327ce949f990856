/**
 * Small readers of FHIR values shared by the mappers, and the valibot pieces of the legacy shapes
 * that several payloads repeat (spec section 2 notation: coding, CodeableConcept, reference, meta).
 */
import * as v from 'valibot';
import { BoundedMemo } from '../src/fhir/bounded-memo.ts';
import { datePart, isObject, normalizeReference, ownEntry, type FhirResource, type Json } from '../src/fhir/primitives.ts';

// The FHIR primitives (src/fhir/primitives.ts), passed on so a mapper imports its readers from one place.
export { datePart, isObject, normalizeReference, ownEntry, type Json };

/**
 * The value as an array of objects ([] for anything else), for reading only: the array itself when
 * every item is an object (no copy: mappers call this for every list of every record).
 */
export function objects(value: unknown): readonly Json[] {
  if (!Array.isArray(value)) return NO_OBJECTS;
  for (const item of value) if (!isObject(item)) return value.filter(isObject);
  return value as Json[];
}

const NO_OBJECTS: readonly Json[] = Object.freeze([]);

export function object(value: unknown): Json | undefined {
  return isObject(value) ? value : undefined;
}

export function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The reference string of a FHIR Reference, normalized to `Type/id` where possible. */
export function referenceOf(value: unknown): string | undefined {
  const ref = text(object(value)?.reference);
  return normalizeReference(ref) ?? ref;
}

/** A FHIR instant as a timestamp with milliseconds and a numeric UTC offset: `meta.lastUpdated`, which the old system writes in UTC, not local time. */
export function timestampWithMillis(value: unknown): string | undefined {
  const written = text(value);
  if (!written) return undefined;
  const known = withMillis.get(written);
  if (known !== undefined) return known;
  const time = Date.parse(written);
  return withMillis.set(written, Number.isNaN(time) ? written : new Date(time).toISOString().replace(/Z$/, '+00:00'));
}

/** Remembered: an answer's records share their lastUpdated. */
const withMillis = new BoundedMemo(20_000);

/** `[{reference, display}]` from a list of FHIR References (those without a reference are skipped). */
export function displayedReferences(value: unknown): Json[] {
  return objects(value).flatMap((item) => {
    const reference = referenceOf(item);
    return reference ? [{ reference, display: text(item.display) ?? null }] : [];
  });
}

/** A FHIR effective[x] as written: `effectiveDateTime`, else the start of `effectivePeriod` (the mapper puts it in legacy form). */
export function effectiveTimestamp(resource: Json): string | undefined {
  return text(resource.effectiveDateTime) ?? text(object(resource.effectivePeriod)?.start);
}

/**
 * A person's name as the old system writes it: the first given name, the separator, the family name
 * (`Alice Newman`, or `Newman`'s `Alice, Newman` form); a part the name lacks is empty, so a name
 * with no parts at all is the separator alone. The name is the official one, else the usual one,
 * else the first; a name written only as `text` is that text. Undefined when there is no name.
 */
export function personName(names: unknown, separator: string): string | undefined {
  const list = objects(names);
  const name = list.find((each) => each.use === 'official') ?? list.find((each) => each.use === 'usual') ?? list[0];
  if (!name) return undefined;
  // The first given name: the old system's record has one first and one last name (middle names are later `given` entries).
  const given = (Array.isArray(name.given) ? name.given : []).find((part): part is string => typeof part === 'string' && part !== '') ?? '';
  const family = text(name.family) ?? '';
  const written = text(name.text);
  if (given === '' && family === '' && written) return written;
  return `${given}${separator}${family}`;
}

/** The display name of a Patient, Practitioner, Organization or Location (`Given Family`, or the `name` string). */
export function displayName(resource: FhirResource | undefined): string | undefined {
  if (!resource) return undefined;
  return personName(resource.name, ' ') ?? text(resource.name);
}

/** `{system, code, display?}` codings of a CodeableConcept: display only when written (spec 2: optional). */
export function codings(concept: unknown): Json[] {
  return objects(object(concept)?.coding).map((coding) => {
    // Members in this order, `display` only when written (built directly: no copy without the undefined ones).
    const legacy: Json = { system: text(coding.system) ?? null, code: text(coding.code) ?? null };
    const display = text(coding.display);
    if (display !== undefined) legacy.display = display;
    return legacy;
  });
}

/** The legacy CodeableConcept `{coding: [coding], text?}` (spec 2 notation); undefined when not written. */
export function legacyConcept(value: unknown): Json | undefined {
  const concept = object(value);
  return concept ? conceptWith(codings(concept), concept) : undefined;
}

/** `{coding, text?}`: the given codings and the concept's text when it has one. */
export function conceptWith(coding: Json[], concept: Json): Json {
  const legacy: Json = { coding };
  const written = text(concept.text);
  if (written !== undefined) legacy.text = written;
  return legacy;
}

/** `{system, code}` codings only (the legacy shapes that show no display). */
export function systemCodes(concept: unknown): Json[] {
  return objects(object(concept)?.coding).map((coding) => ({ system: text(coding.system) ?? null, code: text(coding.code) ?? null }));
}

/** Copies an object without its undefined members, keeping key order. A loop, not entries/fromEntries: every mapper calls this per record. */
export function withDefined<T extends Json>(value: T): T {
  const copy: Json = {};
  for (const key in value) {
    const member = value[key];
    if (member !== undefined) copy[key] = member;
  }
  return copy as T;
}

/** The legacy `meta` object (spec 2.2). */
export function legacyMeta(resource: FhirResource): Json {
  const meta = object(resource.meta) ?? {};
  return {
    versionId: text(meta.versionId) ?? null,
    lastUpdated: timestampWithMillis(meta.lastUpdated) ?? null,
    source: text(meta.source) ?? null,
    profile: Array.isArray(meta.profile) ? meta.profile.filter((p) => typeof p === 'string') : [],
  };
}

// ---- valibot pieces -------------------------------------------------------------------------

// A member a shape shows is always written, null when the upstream lacks it; `v.optional` marks the
// few the spec itself calls optional (docs/decisions.md, "Members the upstream lacks").
export const codingSchema = v.strictObject({
  system: v.nullable(v.string()),
  code: v.nullable(v.string()),
  display: v.optional(v.string()),
});
export const systemCodeSchema = v.strictObject({ system: v.nullable(v.string()), code: v.nullable(v.string()) });
export const codeableConceptSchema = v.strictObject({ coding: v.array(codingSchema), text: v.optional(v.string()) });
export const referenceSchema = v.strictObject({ reference: v.string() });
export const displayedReferenceSchema = v.strictObject({ reference: v.string(), display: v.nullable(v.string()) });
/** A patient reference: its display is always a string, `" "` for a patient without a name (../shared/LEGACY-WIRE.md). */
export const patientReferenceSchema = v.strictObject({ reference: v.string(), display: v.string() });
export const metaSchema = v.strictObject({
  versionId: v.nullable(v.string()),
  lastUpdated: v.nullable(v.string()),
  source: v.nullable(v.string()),
  profile: v.array(v.string()),
});
export const dateSchema = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/));
