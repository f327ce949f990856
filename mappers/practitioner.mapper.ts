/**
 * Practitioner (spec 2.17). Each list keeps the members the spec shows, in its order; a member the
 * upstream leaves out is left out (as codings do), while inner arrays (`given`, `line`) are `[]`.
 * `address[].period` is `{start: date}`, present only when the upstream writes a period start
 * (the shape has no `end`). Telecom and address are personal data: never logged.
 */
import * as v from 'valibot';
import { dateSchema, datePart, legacyMeta, metaSchema, object, objects, text, type Json } from './fhir-values.ts';
import { defineShape } from './legacy-shape.ts';

const nullableString = v.nullable(v.string());

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function address(written: Json): Json {
  const start = datePart(object(written.period)?.start);
  return {
    line: strings(written.line),
    postalCode: text(written.postalCode) ?? null,
    city: text(written.city) ?? null,
    state: text(written.state) ?? null,
    country: text(written.country) ?? null,
    period: start ? { start } : null,
  };
}

export const practitionerShape = defineShape({
  name: 'Practitioner',
  schema: v.strictObject({
    resourceType: v.literal('Practitioner'),
    id: v.nullable(v.string()),
    meta: metaSchema,
    identifier: v.array(v.strictObject({ system: nullableString, value: nullableString })),
    name: v.array(v.strictObject({ family: nullableString, given: v.array(v.string()) })),
    telecom: v.array(v.strictObject({ system: nullableString, value: nullableString, use: nullableString })),
    address: v.array(
      v.strictObject({
        line: v.array(v.string()),
        postalCode: nullableString,
        city: nullableString,
        state: nullableString,
        country: nullableString,
        period: v.nullable(v.strictObject({ start: dateSchema })),
      }),
    ),
  }),
  map: (practitioner) => ({
    resourceType: 'Practitioner',
    id: practitioner.id ?? null,
    meta: legacyMeta(practitioner),
    identifier: objects(practitioner.identifier).map((id) => ({ system: text(id.system) ?? null, value: text(id.value) ?? null })),
    name: objects(practitioner.name).map((name) => ({ family: text(name.family) ?? null, given: strings(name.given) })),
    telecom: objects(practitioner.telecom).map((telecom) => ({
      system: text(telecom.system) ?? null,
      value: text(telecom.value) ?? null,
      use: text(telecom.use) ?? null,
    })),
    address: objects(practitioner.address).map(address),
  }),
});
