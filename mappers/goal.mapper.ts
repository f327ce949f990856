/**
 * Goal, the social-determinants goal (spec 2.15). The spec names the fields only: `description` is the
 * legacy CodeableConcept, `subject` `{reference, display}` like every other subject, and `target` is
 * passed through as FHIR writes it (references normalized). All fields are required there: a missing
 * one is `null`, `[]` for `target`. No `id` in the field list, but kept, like every record that can
 * be read by id; no `meta` (spec 2.2 does not list Goal).
 */
import * as v from 'valibot';
import { codeableConceptSchema, legacyConcept, patientReferenceSchema, text } from './fhir-values.ts';
import { fhirCodeableConceptSchema, fhirQuantitySchema, fhirRangeSchema, fhirRatioSchema, writtenArray } from './fhir-passthrough.ts';
import { defineShape, patientReference } from './legacy-shape.ts';

/** FHIR Goal.target, with its detail[x] and due[x] choices. */
const targetSchema = v.looseObject({
  measure: v.optional(fhirCodeableConceptSchema),
  detailQuantity: v.optional(fhirQuantitySchema),
  detailRange: v.optional(fhirRangeSchema),
  detailCodeableConcept: v.optional(fhirCodeableConceptSchema),
  detailString: v.optional(v.string()),
  detailBoolean: v.optional(v.boolean()),
  detailInteger: v.optional(v.pipe(v.number(), v.integer())),
  detailRatio: v.optional(fhirRatioSchema),
  dueDate: v.optional(v.string()),
  dueDuration: v.optional(fhirQuantitySchema),
});

export const goalShape = defineShape({
  name: 'Goal',
  schema: v.strictObject({
    resourceType: v.literal('Goal'),
    id: v.nullable(v.string()),
    lifecycleStatus: v.nullable(v.string()),
    description: v.nullable(codeableConceptSchema),
    subject: v.nullable(patientReferenceSchema),
    target: v.array(targetSchema),
  }),
  map: (goal, context) => ({
    resourceType: 'Goal',
    id: goal.id ?? null,
    lifecycleStatus: text(goal.lifecycleStatus) ?? null,
    description: legacyConcept(goal.description) ?? null,
    subject: patientReference(goal.subject, context) ?? null,
    target: writtenArray(goal.target),
  }),
});
