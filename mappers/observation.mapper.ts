/**
 * Observation (spec 2.12): no `meta`; `subject` carries the patient's name; `valueCodeableConcept`
 * is written as `{coding: [{system, code}]}` as the legacy payload shows it; `category[].text` and
 * `valueCodeableConcept.text` when the record has them, and the timestamps in the site's time zone,
 * as the newer build of the old system's documentation shows (../shared/LEGACY-WIRE.md).
 */
import * as v from 'valibot';
import {
  codeableConceptSchema,
  codings,
  codingSchema,
  conceptWith,
  effectiveTimestamp,
  legacyConcept,
  object,
  objects,
  patientReferenceSchema,
  systemCodes,
  systemCodeSchema,
  text,
} from './fhir-values.ts';
import { defineShape, patientReference } from './legacy-shape.ts';
import { legacyTimestampSchema } from './legacy-time.ts';

/** Value types other than CodeableConcept are passed through under their FHIR name (docs/decisions.md). */
const PASSED_THROUGH_VALUES = [
  'valueQuantity',
  'valueString',
  'valueBoolean',
  'valueInteger',
  'valueRange',
  'valueRatio',
  'valueSampledData',
  'valueTime',
  'valueDateTime',
  'valuePeriod',
] as const;

/** One component: its code in the legacy form, its value[x] as FHIR writes it. */
function component(part: Record<string, unknown>): Record<string, unknown> {
  const legacy: Record<string, unknown> = { code: legacyConcept(part.code) ?? null };
  // A loop, not entries/fromEntries: every component of every Observation passes here. Only
  // `value…` and `dataAbsentReason` are copied, so no key can be `__proto__`.
  for (const key in part) if (key.startsWith('value') || key === 'dataAbsentReason') legacy[key] = part[key];
  return legacy;
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
      category: objects(observation.category).map((c) => conceptWith(codings(c), c)),
      code: legacyConcept(observation.code) ?? null,
      subject: patientReference(observation.subject, context) ?? null,
      effectiveDateTime: context.time.timestamp(effectiveTimestamp(observation)) ?? null,
      valueCodeableConcept: concept ? conceptWith(systemCodes(concept), concept) : null,
    };
    // Beyond the spec: after its members, in this order, each only when the upstream has it.
    for (const key of PASSED_THROUGH_VALUES) if (observation[key] !== undefined) legacy[key] = observation[key];
    if (absent) legacy.dataAbsentReason = conceptWith(codings(absent), absent);
    // A blood pressure's values live in its components: passed through so none is lost.
    if (Array.isArray(observation.component)) legacy.component = objects(observation.component).map(component);
    return legacy;
  },
});
