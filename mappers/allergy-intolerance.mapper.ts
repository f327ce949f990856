/**
 * AllergyIntolerance (spec 2.6). No `id` and no `meta`: the spec's field list has neither. Status
 * codings are `{system, code}` only; `patient` is written display first, as the spec writes it, the
 * display being the written one or the included Patient's name.
 */
import * as v from 'valibot';
import {
  codeableConceptSchema, legacyConcept, object, objects, systemCodes, systemCodeSchema, text, type
  Json,
} from './fhir-values.ts';
import { defineShape, namedReference, type MapContext } from './legacy-shape.ts';

const statusSchema = v.nullable(v.strictObject({ coding: v.array(systemCodeSchema) }));

function status(value: unknown): Json | null {
  return object(value) ? { coding: systemCodes(value) } : null;
}

function patient(value: unknown, context: MapContext): Json | null {
  const named = namedReference(value, context);
  // Display first: the key order the old system's AllergyIntolerance shows (../shared/LEGACY-WIRE.md).
  return named ? { display: named.display, reference: named.reference } : null;
}

export const allergyIntoleranceShape = defineShape({
  name: 'AllergyIntolerance',
  schema: v.strictObject({
    resourceType: v.literal('AllergyIntolerance'),
    code: v.nullable(codeableConceptSchema),
    reaction: v.array(
      v.strictObject({ manifestation: v.array(codeableConceptSchema), severity: v.nullable(v.string()) }),
    ),
    clinicalStatus: statusSchema,
    verificationStatus: statusSchema,
    patient: v.nullable(v.strictObject({ display: v.nullable(v.string()), reference: v.string() })),
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
