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
  return { code: legacyConcept(part.code) ?? null, ...values };
}

export const observationShape = defineShape({
  name: 'Observation',
  schema: v.strictObject({
    resourceType: v.literal('Observation'),
    id: v.nullable(v.string()),
    status: v.nullable(v.string()),
    issued: v.nullable(v.string()),
    category: v.array(v.strictObject({ coding: v.array(codingSchema) })),
    code: v.nullable(codeableConceptSchema),
    subject: v.nullable(displayedReferenceSchema),
    effectiveDateTime: v.nullable(v.string()),
    valueCodeableConcept: v.nullable(v.strictObject({ coding: v.array(systemCodeSchema) })),
    // Beyond the spec's members: written only when the upstream has them (docs/decisions.md).
    ...Object.fromEntries(PASSED_THROUGH_VALUES.map((key) => [key, v.optional(v.unknown())])),
    dataAbsentReason: v.optional(codeableConceptSchema),
    component: v.optional(v.array(v.looseObject({ code: v.nullable(codeableConceptSchema) }))),
  }),
  map: (observation, context) => {
    const concept = object(observation.valueCodeableConcept);
    const absent = object(observation.dataAbsentReason);
    const legacy: Record<string, unknown> = {
      resourceType: 'Observation',
      id: observation.id ?? null,
      status: text(observation.status) ?? null,
      issued: text(observation.issued) ?? null,
      category: objects(observation.category).map((c) => ({ coding: codings(c) })),
      code: legacyConcept(observation.code) ?? null,
      subject: namedReference(observation.subject, context) ?? null,
      effectiveDateTime: effectiveTimestamp(observation) ?? null,
      valueCodeableConcept: concept ? { coding: systemCodes(concept) } : null,
    };
    const beyondSpec = {
      ...Object.fromEntries(PASSED_THROUGH_VALUES.map((key) => [key, observation[key]])),
      dataAbsentReason: absent ? withDefined({ coding: codings(absent), text: text(absent.text) }) : undefined,
      // A blood pressure's values live in its components: passed through so none is lost.
      component: Array.isArray(observation.component) ? objects(observation.component).map(component) : undefined,
    };
    return { ...legacy, ...withDefined(beyondSpec) };
  },
});
