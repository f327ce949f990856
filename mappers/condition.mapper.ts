/**
 * Condition (spec 2.8). Every field but `abatementDateTime` is required: `null` when the upstream
 * lacks it. `abatementDateTime` is present only on a resolved condition, i.e. only when the upstream
 * writes `abatementDateTime`; otherwise the key is absent. `onsetDateTime` falls back to
 * `onsetPeriod.start`, as effective dates do on Observation and DiagnosticReport.
 */
import * as v from 'valibot';
import {
  codingSchema, codings, displayedReferenceSchema, legacyMeta, metaSchema, object, objects, referenceOf,
  referenceSchema, text, withDefined, type Json,
} from './fhir-values.ts';
import { defineShape, namedReference } from './legacy-shape.ts';

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
    subject: v.nullable(displayedReferenceSchema),
    recordedDate: v.nullable(v.string()),
    onsetDateTime: v.nullable(v.string()),
    abatementDateTime: v.optional(v.string()),
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
      subject: namedReference(condition.subject, context) ?? null,
      recordedDate: text(condition.recordedDate) ?? null,
      onsetDateTime: text(condition.onsetDateTime) ?? text(object(condition.onsetPeriod)?.start) ?? null,
      abatementDateTime: text(condition.abatementDateTime),
      encounter: encounter ? { reference: encounter } : null,
    });
  },
});
