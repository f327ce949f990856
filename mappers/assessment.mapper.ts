/**
 * Assessment (spec 2.10): a survey-category Observation (a screening or assessment instrument) in
 * the legacy's fields only. `meta` is a string there: the legacy meta object serialized as JSON.
 * See docs/decisions.md ("Assessments").
 */
import * as v from 'valibot';
import { codeableConceptSchema, effectiveTimestamp, legacyConcept, legacyMeta, patientReferenceSchema, text } from './fhir-values.ts';
import { defineShape, patientReference } from './legacy-shape.ts';
import { legacyTimestampSchema } from './legacy-time.ts';

export const assessmentShape = defineShape({
  name: 'Assessment',
  schema: v.strictObject({
    resourceType: v.literal('Assessment'),
    meta: v.string(),
    status: v.nullable(v.string()),
    code: v.nullable(codeableConceptSchema),
    subject: v.nullable(patientReferenceSchema),
    effectiveDateTime: v.nullable(legacyTimestampSchema),
  }),
  map: (observation, context) => ({
    resourceType: 'Assessment',
    meta: JSON.stringify(legacyMeta(observation)),
    status: text(observation.status) ?? null,
    code: legacyConcept(observation.code) ?? null,
    subject: patientReference(observation.subject, context) ?? null,
    effectiveDateTime: context.time.timestamp(effectiveTimestamp(observation)) ?? null,
  }),
});
