/**
 * Immunization (spec 2.7). No `id` and no `meta`: the spec's field list has neither. Every field is
 * required there, so a missing one is `null`. `statusReason` is `{text}`: the reason's text, else its
 * first coding display, else (a coded reason with no words) that coding's code, so a not-done record
 * never loses its reason; `null` when the upstream gives no reason at all (as on a completed one).
 */
import * as v from 'valibot';
import { codeableConceptSchema, legacyConcept, object, objects, referenceOf, referenceSchema, text, type Json } from './fhir-values.ts';
import { defineShape } from './legacy-shape.ts';
import { legacyTimestampSchema } from './legacy-time.ts';

function statusReason(value: unknown): Json | null {
  const reason = object(value);
  if (!reason) return null;
  const coding = objects(reason.coding);
  const written =
    text(reason.text) ??
    coding.map((c) => text(c.display)).find((display) => display !== undefined) ??
    coding.map((c) => text(c.code)).find((code) => code !== undefined);
  return written ? { text: written } : null;
}

export const immunizationShape = defineShape({
  name: 'Immunization',
  withoutId: true,
  schema: v.strictObject({
    resourceType: v.literal('Immunization'),
    occurrenceDateTime: v.nullable(legacyTimestampSchema),
    status: v.nullable(v.string()),
    statusReason: v.nullable(v.strictObject({ text: v.string() })),
    vaccineCode: v.nullable(codeableConceptSchema),
    patient: v.nullable(referenceSchema),
    primarySource: v.nullable(v.boolean()),
  }),
  map: (immunization, context) => {
    const patient = referenceOf(immunization.patient);
    return {
      resourceType: 'Immunization',
      // A timestamp (spec 2.7); an `occurrenceString` ("last spring") is not one, so it is not used here.
      occurrenceDateTime: context.time.timestamp(immunization.occurrenceDateTime) ?? null,
      status: text(immunization.status) ?? null,
      statusReason: statusReason(immunization.statusReason),
      vaccineCode: legacyConcept(immunization.vaccineCode) ?? null,
      patient: patient ? { reference: patient } : null,
      primarySource: typeof immunization.primarySource === 'boolean' ? immunization.primarySource : null,
    };
  },
});
