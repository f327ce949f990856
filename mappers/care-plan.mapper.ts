/**
 * CarePlan (spec 2.4). `text` is the FHIR narrative (`{status, div}`) as written, null when the plan
 * has none; category codings are `{system, code}` only, as the spec shows them. Every member the
 * reference table lists as required is present: `null` when the upstream lacks it, `[]` for arrays.
 */
import * as v from 'valibot';
import { legacyMeta, metaSchema, object, objects, patientReferenceSchema, systemCodes, systemCodeSchema, text } from './fhir-values.ts';
import { defineShape, patientReference } from './legacy-shape.ts';

/** The narrative's two members; a narrative missing either is not a usable one, so it counts as absent. */
function narrative(value: unknown): { status: string; div: string } | null {
  const written = object(value);
  const status = text(written?.status);
  const div = text(written?.div);
  return status && div ? { status, div } : null;
}

export const carePlanShape = defineShape({
  name: 'CarePlan',
  schema: v.strictObject({
    resourceType: v.literal('CarePlan'),
    id: v.nullable(v.string()),
    meta: metaSchema,
    text: v.nullable(v.strictObject({ status: v.string(), div: v.string() })),
    status: v.nullable(v.string()),
    intent: v.nullable(v.string()),
    category: v.array(v.strictObject({ coding: v.array(systemCodeSchema) })),
    subject: v.nullable(patientReferenceSchema),
  }),
  map: (plan, context) => ({
    resourceType: 'CarePlan',
    id: plan.id ?? null,
    meta: legacyMeta(plan),
    text: narrative(plan.text),
    status: text(plan.status) ?? null,
    intent: text(plan.intent) ?? null,
    category: objects(plan.category).map((concept) => ({ coding: systemCodes(concept) })),
    // Display: the written one, else the included Patient's name (as on Observation).
    subject: patientReference(plan.subject, context) ?? null,
  }),
});
