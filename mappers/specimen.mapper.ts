/**
 * Specimen (spec 2.16). The spec names the fields but shows no inner structure, so `type`,
 * `collection` and `container` are passed through as FHIR writes them (references normalized).
 * All fields are required there: a missing one is `null`, `[]` for `container`. `id` is kept, as on
 * every record read by id; no `meta` (spec 2.2 does not list Specimen).
 */
import * as v from 'valibot';
import { patientReferenceSchema } from './fhir-values.ts';
import {
  fhirCodeableConceptSchema,
  fhirIdentifierSchema,
  fhirPeriodSchema,
  fhirQuantitySchema,
  fhirReferenceSchema,
  withLegacyTimes,
  writtenArray,
  writtenObject,
} from './fhir-passthrough.ts';
import { defineShape, patientReference } from './legacy-shape.ts';

/** FHIR Specimen.collection, with its collected[x] and fastingStatus[x] choices. */
const collectionSchema = v.looseObject({
  collector: v.optional(fhirReferenceSchema),
  collectedDateTime: v.optional(v.string()),
  collectedPeriod: v.optional(fhirPeriodSchema),
  duration: v.optional(fhirQuantitySchema),
  quantity: v.optional(fhirQuantitySchema),
  method: v.optional(fhirCodeableConceptSchema),
  bodySite: v.optional(fhirCodeableConceptSchema),
  fastingStatusCodeableConcept: v.optional(fhirCodeableConceptSchema),
  fastingStatusDuration: v.optional(fhirQuantitySchema),
});

/** FHIR Specimen.container, with its additive[x] choice. */
const containerSchema = v.looseObject({
  identifier: v.optional(v.array(fhirIdentifierSchema)),
  description: v.optional(v.string()),
  type: v.optional(fhirCodeableConceptSchema),
  capacity: v.optional(fhirQuantitySchema),
  specimenQuantity: v.optional(fhirQuantitySchema),
  additiveCodeableConcept: v.optional(fhirCodeableConceptSchema),
  additiveReference: v.optional(fhirReferenceSchema),
});

export const specimenShape = defineShape({
  name: 'Specimen',
  schema: v.strictObject({
    resourceType: v.literal('Specimen'),
    id: v.nullable(v.string()),
    type: v.nullable(fhirCodeableConceptSchema),
    subject: v.nullable(patientReferenceSchema),
    collection: v.nullable(collectionSchema),
    container: v.array(containerSchema),
  }),
  map: (specimen, context) => ({
    resourceType: 'Specimen',
    id: specimen.id ?? null,
    type: writtenObject(specimen.type),
    subject: patientReference(specimen.subject, context) ?? null,
    collection: withLegacyTimes(writtenObject(specimen.collection), context.time, ['collectedDateTime'], ['collectedPeriod']),
    container: writtenArray(specimen.container),
  }),
});
