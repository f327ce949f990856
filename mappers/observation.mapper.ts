/**
 * Observation (spec 2.12): no `meta`; `subject` carries the patient's name; `valueCodeableConcept`
 * is written as `{coding: [{system, code}]}` as the legacy payload shows it.
 */
import * as v from 'valibot';
import {
  codeableConceptSchema, codings, codingSchema, displayedReferenceSchema, effectiveTimestamp, legacyConcept,
  object, objects, systemCodes, systemCodeSchema, text, withDefined,
} from './fhir-values.ts';
import { defineShape, namedReference } from './legacy-shape.ts';

/** Value types other than CodeableConcept are passed through under their FHIR name (docs/decisions.md). */
const PASSED_THROUGH_VALUES = [
  'valueQuantity', 'valueString', 'valueBoolean', 'valueInteger', 'valueRange', 'valueRatio',
  'valueSampledData', 'valueTime', 'valueDateTime', 'valuePeriod',
] as const;

/** One component: its code in the legacy form, its value[x] as FHIR writes it. */
function component(part: Record<string, unknown>): Record<string, unknown> {
  const values = Object.fromEntries(Object.entries(part).filter(([key]) => key.startsWith('value') || key === 'dataAbsentReason'));
  return { code: legacyConcept(part.code) ?? { coding: [] }, ...values };
}

export const observationShape = defineShape({
  name: 'Observation',
  schema: v.strictObject({
    resourceType: v.literal('Observation'),
    id: v.string(),
    status: v.string(),
    issued: v.optional(v.string()),
    category: v.array(v.strictObject({ coding: v.array(codingSchema) })),
    code: codeableConceptSchema,
    subject: v.optional(displayedReferenceSchema),
    effectiveDateTime: v.optional(v.string()),
    valueCodeableConcept: v.optional(v.strictObject({ coding: v.array(systemCodeSchema) })),
    ...Object.fromEntries(PASSED_THROUGH_VALUES.map((key) => [key, v.optional(v.unknown())])),
    dataAbsentReason: v.optional(codeableConceptSchema),
    component: v.optional(v.array(v.looseObject({ code: codeableConceptSchema }))),
  }),
  map: (observation, context) => {
    const concept = object(observation.valueCodeableConcept);
    const passed = Object.fromEntries(PASSED_THROUGH_VALUES.map((key) => [key, observation[key]]));
    const absent = object(observation.dataAbsentReason);
    return withDefined({
      resourceType: 'Observation',
      id: observation.id ?? '',
      status: text(observation.status),
      issued: text(observation.issued),
      category: objects(observation.category).map((c) => ({ coding: codings(c) })),
      code: legacyConcept(observation.code) ?? { coding: [] },
      subject: namedReference(observation.subject, context),
      effectiveDateTime: effectiveTimestamp(observation),
      valueCodeableConcept: concept ? { coding: systemCodes(concept) } : undefined,
      ...passed,
      dataAbsentReason: absent ? withDefined({ coding: codings(absent), text: text(absent.text) }) : undefined,
      // A blood pressure's values live in its components: passed through so none is lost.
      component: Array.isArray(observation.component) ? objects(observation.component).map(component) : undefined,
    });
  },
});
