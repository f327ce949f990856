/**
 * Procedure (spec 2.13). `performedPeriod` is `{start, end}` as `YYYY-MM-DD` dates (the local date
 * in the old system's time zone), taken from `performedPeriod`, or from `performedDateTime` as both start and
 * end (a procedure done at one moment); a member the upstream leaves unknown is `null`, and the object
 * is always present. Other required fields are `null` when the upstream lacks them.
 */
import * as v from 'valibot';
import { codings, codingSchema, dateSchema, type Json, legacyMeta, metaSchema, object, patientReferenceSchema, text } from './fhir-values.ts';
import { defineShape, patientReference, type MapContext } from './legacy-shape.ts';

function performedPeriod(procedure: Json, { time }: MapContext): Json {
  const period = object(procedure.performedPeriod);
  if (period) return { start: time.date(period.start) ?? null, end: time.date(period.end) ?? null };
  const moment = time.date(procedure.performedDateTime) ?? null;
  return { start: moment, end: moment };
}

export const procedureShape = defineShape({
  name: 'Procedure',
  schema: v.strictObject({
    resourceType: v.literal('Procedure'),
    id: v.nullable(v.string()),
    meta: metaSchema,
    status: v.nullable(v.string()),
    code: v.nullable(v.strictObject({ coding: v.array(codingSchema) })),
    subject: v.nullable(patientReferenceSchema),
    performedPeriod: v.strictObject({ start: v.nullable(dateSchema), end: v.nullable(dateSchema) }),
  }),
  map: (procedure, context) => ({
    resourceType: 'Procedure',
    id: procedure.id ?? null,
    meta: legacyMeta(procedure),
    status: text(procedure.status) ?? null,
    code: object(procedure.code) ? { coding: codings(procedure.code) } : null,
    subject: patientReference(procedure.subject, context) ?? null,
    performedPeriod: performedPeriod(procedure, context),
  }),
});
