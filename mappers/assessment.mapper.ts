/**
 * Assessment (spec 2.10): a survey-category Observation (a screening or assessment instrument) in
 * the legacy's fields only. `meta` is a string there: the legacy meta object serialized as JSON.
 * See docs/decisions.md ("Assessments").
 */
import * as v from 'valibot';
import { codeableConceptSchema, displayedReferenceSchema, effectiveTimestamp, legacyConcept, legacyMeta, text } from './fhir-values.ts';
import { defineShape, namedReference } from './legacy-shape.ts';

export const assessmentShape = defineShape({
  name: 'Assessment',
  schema: v.strictObject({
    resourceType: v.literal('Assessment'),
    meta: v.string(),
    status: v.nullable(v.string()),
    code: v.nullable(codeableConceptSchema),
    subject: v.nullable(displayedReferenceSchema),
    effectiveDateTime: v.nullable(v.string()),
  }),
  map: (observation, context) => ({
    resourceType: 'Assessment',
    meta: JSON.stringify(legacyMeta(observation)),
    status: text(observation.status) ?? null,
    code: legacyConcept(observation.code) ?? null,
    subject: namedReference(observation.subject, context) ?? null,
    effectiveDateTime: effectiveTimestamp(observation) ?? null,
  }),
});
