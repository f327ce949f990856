/**
 * Practitioner (spec 2.17). Each list keeps the members the spec shows, in its order; a member the
 * upstream leaves out is left out (as codings do), while inner arrays (`given`, `line`) are `[]`.
 * `address[].period` is `{start: date}`, present only when the upstream writes a period start
 * (the shape has no `end`). Telecom and address are personal data: never logged.
 */
import * as v from 'valibot';
import {
  dateSchema, datePart, legacyMeta, metaSchema, object, objects, text, withDefined, type Json,
} from './fhir-values.ts';
import { defineShape } from './legacy-shape.ts';

const optionalString = v.optional(v.string());

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function address(written: Json): Json {
  const start = datePart(object(written.period)?.start);
  return withDefined({
    line: strings(written.line),
    postalCode: text(written.postalCode),
    city: text(written.city),
    state: text(written.state),
    country: text(written.country),
    period: start ? { start } : undefined,
  });
}

export const practitionerShape = defineShape({
  name: 'Practitioner',
  schema: v.strictObject({
    resourceType: v.literal('Practitioner'),
    id: v.string(),
    meta: metaSchema,
    identifier: v.array(v.strictObject({ system: optionalString, value: optionalString })),
    name: v.array(v.strictObject({ family: optionalString, given: v.array(v.string()) })),
    telecom: v.array(v.strictObject({ system: optionalString, value: optionalString, use: optionalString })),
    address: v.array(
      v.strictObject({
        line: v.array(v.string()),
        postalCode: optionalString,
        city: optionalString,
        state: optionalString,
        country: optionalString,
        period: v.optional(v.strictObject({ start: dateSchema })),
      }),
    ),
  }),
  map: (practitioner) => ({
    resourceType: 'Practitioner',
    id: practitioner.id ?? '',
    meta: legacyMeta(practitioner),
    identifier: objects(practitioner.identifier).map((id) => withDefined({ system: text(id.system), value: text(id.value) })),
    name: objects(practitioner.name).map((name) => withDefined({ family: text(name.family), given: strings(name.given) })),
    telecom: objects(practitioner.telecom).map((telecom) =>
      withDefined({ system: text(telecom.system), value: text(telecom.value), use: text(telecom.use) }),
    ),
    address: objects(practitioner.address).map(address),
  }),
});
