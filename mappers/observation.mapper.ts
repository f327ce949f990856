/**
 * Observation (spec 2.12): no `meta`; `subject` carries the patient's name; `valueCodeableConcept`
 * is written as `{coding: [{system, code}]}` as the legacy payload shows it; `category[].text` and
 * `valueCodeableConcept.text` when the record has them, and the timestamps in the site's time zone,
 * as the newer build of the old system's documentation shows (../shared/LEGACY-WIRE.md).
 */
import * as v from 'valibot';
import {
  codeableConceptSchema, codings, codingSchema, effectiveTimestamp, legacyConcept, object, objects, patientReferenceSchema,
  systemCodes, systemCodeSchema, text, withDefined,
} from './fhir-values.ts';
import { defineShape, patientReference } from './legacy-shape.ts';
import { legacyTimestampSchema } from './legacy-time.ts';

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
    issued: v.nullable(legacyTimestampSchema),
    category: v.array(v.strictObject({ coding: v.array(codingSchema), text: v.optional(v.string()) })),
    code: v.nullable(codeableConceptSchema),
    subject: v.nullable(patientReferenceSchema),
    effectiveDateTime: v.nullable(legacyTimestampSchema),
    valueCodeableConcept: v.nullable(v.strictObject({ coding: v.array(systemCodeSchema), text: v.optional(v.string()) })),
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
      issued: context.time.timestamp(observation.issued) ?? null,
      category: objects(observation.category).map((c) => withDefined({ coding: codings(c), text: text(c.text) })),
      code: legacyConcept(observation.code) ?? null,
      subject: patientReference(observation.subject, context) ?? null,
      effectiveDateTime: context.time.timestamp(effectiveTimestamp(observation)) ?? null,
      valueCodeableConcept: concept ? withDefined({ coding: systemCodes(concept), text: text(concept.text) }) : null,
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
