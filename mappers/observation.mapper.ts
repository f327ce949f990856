/**
 * Observation (spec 2.12): no `meta`; `subject` carries the patient's name; `valueCodeableConcept`
 * is written as `{coding: [{system, code}]}` as the legacy payload shows it.
 */
import * as v from 'valibot';
import {
  codeableConceptSchema, codings, displayName, displayedReferenceSchema, object, objects, referenceOf,
  systemCodeSchema, systemCodes, text, withDefined, type Json,
} from './fhir-values.ts';
import { defineShape, type MapContext } from './legacy-shape.ts';

/** Value types other than CodeableConcept are passed through under their FHIR name (docs/decisions.md). */
const PASSED_THROUGH_VALUES = [
  'valueQuantity', 'valueString', 'valueBoolean', 'valueInteger', 'valueRange', 'valueRatio',
  'valueSampledData', 'valueTime', 'valueDateTime', 'valuePeriod',
] as const;

/** `{reference, display}` where display is the written one or the included Patient's name. */
export function subjectWithName(subject: unknown, context: MapContext): Json | undefined {
  const reference = referenceOf(subject);
  if (!reference) return undefined;
  return withDefined({ reference, display: text(object(subject)?.display) ?? displayName(context.resolve(reference)) });
}

export const observationShape = defineShape({
  name: 'Observation',
  schema: v.strictObject({
    resourceType: v.literal('Observation'),
    id: v.string(),
    status: v.string(),
    issued: v.optional(v.string()),
    category: v.array(v.strictObject({ coding: v.array(v.strictObject({ system: v.optional(v.string()), code: v.optional(v.string()), display: v.optional(v.string()) })) })),
    code: codeableConceptSchema,
    subject: v.optional(displayedReferenceSchema),
    effectiveDateTime: v.optional(v.string()),
    valueCodeableConcept: v.optional(v.strictObject({ coding: v.array(systemCodeSchema) })),
    ...Object.fromEntries(PASSED_THROUGH_VALUES.map((key) => [key, v.optional(v.unknown())])),
    dataAbsentReason: v.optional(codeableConceptSchema),
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
      code: withDefined({ coding: codings(observation.code), text: text(object(observation.code)?.text) }),
      subject: subjectWithName(observation.subject, context),
      effectiveDateTime: text(observation.effectiveDateTime) ?? text(object(observation.effectivePeriod)?.start),
      valueCodeableConcept: concept ? { coding: systemCodes(concept) } : undefined,
      ...passed,
      dataAbsentReason: absent ? withDefined({ coding: codings(absent), text: text(absent.text) }) : undefined,
    });
  },
});
