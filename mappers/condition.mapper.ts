/**
 * Condition (spec 2.8). Every field but `abatementDateTime` is required: `null` when the upstream
 * lacks it. `abatementDateTime` is present only on a resolved condition, i.e. only when the upstream
 * writes `abatementDateTime`; otherwise the key is absent. `onsetDateTime` falls back to
 * `onsetPeriod.start`, as effective dates do on Observation and DiagnosticReport. The three are
 * timestamps (spec 2.8) in the old system's form, a date alone as local midnight.
 */
import * as v from 'valibot';
import {
  codingSchema,
  codings,
  legacyMeta,
  metaSchema,
  object,
  objects,
  patientReferenceSchema,
  referenceOf,
  referenceSchema,
  withDefined,
  type Json,
} from './fhir-values.ts';
import { defineShape, patientReference } from './legacy-shape.ts';
import { legacyTimestampSchema } from './legacy-time.ts';

const codedSchema = v.strictObject({ coding: v.array(codingSchema) });

/** `{coding: [coding]}` (no `text`: the spec shows none on these members); null when not written. */
function coded(value: unknown): Json | null {
  return object(value) ? { coding: codings(value) } : null;
}

export const conditionShape = defineShape({
  name: 'Condition',
  schema: v.strictObject({
    resourceType: v.literal('Condition'),
    id: v.nullable(v.string()),
    meta: metaSchema,
    clinicalStatus: v.nullable(codedSchema),
    verificationStatus: v.nullable(codedSchema),
    category: v.array(codedSchema),
    code: v.nullable(codedSchema),
    subject: v.nullable(patientReferenceSchema),
    recordedDate: v.nullable(legacyTimestampSchema),
    onsetDateTime: v.nullable(legacyTimestampSchema),
    abatementDateTime: v.optional(legacyTimestampSchema),
    encounter: v.nullable(referenceSchema),
  }),
  map: (condition, context) => {
    const encounter = referenceOf(condition.encounter);
    return withDefined({
      resourceType: 'Condition',
      id: condition.id ?? null,
      meta: legacyMeta(condition),
      clinicalStatus: coded(condition.clinicalStatus),
      verificationStatus: coded(condition.verificationStatus),
      category: objects(condition.category).map((concept) => ({ coding: codings(concept) })),
      code: coded(condition.code),
      subject: patientReference(condition.subject, context) ?? null,
      recordedDate: context.time.timestamp(condition.recordedDate) ?? null,
      onsetDateTime: context.time.timestamp(condition.onsetDateTime ?? object(condition.onsetPeriod)?.start) ?? null,
      abatementDateTime: context.time.timestamp(condition.abatementDateTime),
      encounter: encounter ? { reference: encounter } : null,
    });
  },
});
