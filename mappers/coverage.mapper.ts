/**
 * Coverage (spec 2.11). The spec names the fields but shows no inner structure, so each FHIR value is
 * passed through as written (references normalized to `Type/id`). All fields are required there:
 * a missing one is `null`, `[]` for arrays. FHIR's `class` is written `Class`, as the spec spells it.
 * No `meta`: spec 2.2 does not list Coverage.
 */
import * as v from 'valibot';
import { text } from './fhir-values.ts';
import {
  fhirCodeableConceptSchema,
  fhirIdentifierSchema,
  fhirPeriodSchema,
  fhirReferenceSchema,
  withLegacyTimes,
  writtenArray,
  writtenObject,
} from './fhir-passthrough.ts';
import { defineShape } from './legacy-shape.ts';

/** FHIR Coverage.class: type and value are 1..1 there. */
const classSchema = v.looseObject({ type: fhirCodeableConceptSchema, value: v.string(), name: v.optional(v.string()) });

export const coverageShape = defineShape({
  name: 'Coverage',
  schema: v.strictObject({
    resourceType: v.literal('Coverage'),
    id: v.nullable(v.string()),
    identifier: v.array(fhirIdentifierSchema),
    type: v.nullable(fhirCodeableConceptSchema),
    status: v.nullable(v.string()),
    subscriber: v.nullable(fhirReferenceSchema),
    beneficiary: v.nullable(fhirReferenceSchema),
    relationship: v.nullable(fhirCodeableConceptSchema),
    subscriberId: v.nullable(v.string()),
    period: v.nullable(fhirPeriodSchema),
    payor: v.array(fhirReferenceSchema),
    Class: v.array(classSchema),
  }),
  // The period's ends in the old system's timestamp form when they hold a time of day (fhir-passthrough.ts).
  map: (coverage, context) =>
    withLegacyTimes(
      {
        resourceType: 'Coverage',
        id: coverage.id ?? null,
        identifier: writtenArray(coverage.identifier),
        type: writtenObject(coverage.type),
        status: text(coverage.status) ?? null,
        subscriber: writtenObject(coverage.subscriber),
        beneficiary: writtenObject(coverage.beneficiary),
        relationship: writtenObject(coverage.relationship),
        subscriberId: text(coverage.subscriberId) ?? null,
        period: writtenObject(coverage.period),
        payor: writtenArray(coverage.payor),
        Class: writtenArray(coverage.class),
      },
      context.time,
      [],
      ['period'],
    ),
});
