/**
 * FHIR values passed through as the upstream wrote them, for the shapes whose inner structure the
 * spec leaves "not shown" (Coverage, Goal, Specimen: spec 2.11, 2.15, 2.16), and the loose valibot
 * schemas that still type the members FHIR defines.
 */
import * as v from 'valibot';
import { isObject, normalizeReference, type Json } from './fhir-values.ts';
import type { LegacyTime } from './legacy-time.ts';

/**
 * A FHIR value as the upstream wrote it, except that every Reference's `reference` is normalized to
 * `Type/id` (the one rewrite every payload applies to references, even inside "as written" values).
 */
export function asWritten(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asWritten);
  if (!isObject(value)) return value;
  const copy: Json = {};
  for (const key in value) {
    const member = value[key];
    copy[key] = key === 'reference' && typeof member === 'string' ? (normalizeReference(member) ?? member) : asWritten(member);
  }
  return copy;
}

/** `asWritten` of an object member; null when the upstream has none (the legacy's required members). */
export function writtenObject(value: unknown): Json | null {
  return isObject(value) ? (asWritten(value) as Json) : null;
}

/** `asWritten` of an array member; `[]` when the upstream has none. */
export function writtenArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value.map(asWritten) : [];
}

/**
 * A copy passed through as written, with its FHIR dateTime members (`dateTimes`, and `start`/`end`
 * of its Period members `periods`) in the old system's timestamp form where they hold a time of day:
 * the one serializer the old system wrote every timestamp with (docs/decisions.md, "Timestamps").
 */
export function withLegacyTimes<T extends Json | null>(value: T, time: LegacyTime, dateTimes: readonly string[], periods: readonly string[] = []): T {
  if (!value) return value;
  for (const key of dateTimes) if (key in value) value[key] = time.writtenDateTime(value[key]);
  for (const key of periods) {
    const period = value[key];
    if (!isObject(period)) continue;
    if ('start' in period) period.start = time.writtenDateTime(period.start);
    if ('end' in period) period.end = time.writtenDateTime(period.end);
  }
  return value;
}

// ---- valibot pieces for FHIR values passed through as written --------------------------------
// Loose, because FHIR lets any element carry `id`, `extension` and `_primitive` siblings; the members
// FHIR defines are still typed, so a wrong type fails the contract tests.

const optionalString = v.optional(v.string());

export const fhirCodingSchema = v.looseObject({
  system: optionalString,
  version: optionalString,
  code: optionalString,
  display: optionalString,
  userSelected: v.optional(v.boolean()),
});
export const fhirCodeableConceptSchema = v.looseObject({ coding: v.optional(v.array(fhirCodingSchema)), text: optionalString });
export const fhirPeriodSchema = v.looseObject({ start: optionalString, end: optionalString });
export const fhirQuantitySchema = v.looseObject({
  value: v.optional(v.number()),
  comparator: optionalString,
  unit: optionalString,
  system: optionalString,
  code: optionalString,
});
export const fhirReferenceSchema = v.looseObject({
  reference: optionalString,
  type: optionalString,
  // Identifier holds a Reference (assigner) in turn; one level of typing is enough here.
  identifier: v.optional(v.looseObject({ system: optionalString, value: optionalString })),
  display: optionalString,
});
export const fhirIdentifierSchema = v.looseObject({
  use: optionalString,
  type: v.optional(fhirCodeableConceptSchema),
  system: optionalString,
  value: optionalString,
  period: v.optional(fhirPeriodSchema),
  assigner: v.optional(fhirReferenceSchema),
});
export const fhirRangeSchema = v.looseObject({ low: v.optional(fhirQuantitySchema), high: v.optional(fhirQuantitySchema) });
export const fhirRatioSchema = v.looseObject({ numerator: v.optional(fhirQuantitySchema), denominator: v.optional(fhirQuantitySchema) });
