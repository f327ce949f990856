/**
 * AllergyIntolerance (spec 2.6). No `id` and no `meta`: the spec's field list has neither. Status
 * codings are `{system, code}` only; `patient` is `{display, reference}`, display first, the
 * display the patient's name as `Given, Family` (../shared/LEGACY-WIRE.md).
 */
import * as v from 'valibot';
import { codeableConceptSchema, legacyConcept, object, objects, referenceOf, systemCodes, systemCodeSchema, text, type Json } from './fhir-values.ts';
import { defineShape, patientName, type MapContext } from './legacy-shape.ts';

const statusSchema = v.nullable(v.strictObject({ coding: v.array(systemCodeSchema) }));

function status(value: unknown): Json | null {
  return object(value) ? { coding: systemCodes(value) } : null;
}

/** Display first, `Given, Family` (`", "` for a patient without a name): the old system's AllergyIntolerance form. */
function patient(value: unknown, context: MapContext): Json | null {
  const reference = referenceOf(value);
  return reference ? { display: patientName(value, context, ', '), reference } : null;
}

export const allergyIntoleranceShape = defineShape({
  name: 'AllergyIntolerance',
  withoutId: true,
  schema: v.strictObject({
    resourceType: v.literal('AllergyIntolerance'),
    code: v.nullable(codeableConceptSchema),
    reaction: v.array(v.strictObject({ manifestation: v.array(codeableConceptSchema), severity: v.nullable(v.string()) })),
    clinicalStatus: statusSchema,
    verificationStatus: statusSchema,
    patient: v.nullable(v.strictObject({ display: v.string(), reference: v.string() })),
  }),
  map: (allergy, context) => ({
    resourceType: 'AllergyIntolerance',
    code: legacyConcept(allergy.code) ?? null,
    reaction: objects(allergy.reaction).map((reaction) => ({
      manifestation: objects(reaction.manifestation).flatMap((concept) => legacyConcept(concept) ?? []),
      severity: text(reaction.severity) ?? null,
    })),
    clinicalStatus: status(allergy.clinicalStatus),
    verificationStatus: status(allergy.verificationStatus),
    patient: patient(allergy.patient, context),
  }),
});
