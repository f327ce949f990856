/**
 * Provenance (spec 2.12), carried in Observation bundles for `_revinclude=Provenance:target`.
 * No `meta`; each agent's `who` is `{reference}` or, when the upstream has only a name, `{display}`;
 * `recorded` is a timestamp in the old system's form (../shared/LEGACY-WIRE.md).
 */
import * as v from 'valibot';
import { object, objects, referenceOf, systemCodeSchema, systemCodes, text } from './fhir-values.ts';
import { defineShape } from './legacy-shape.ts';
import { legacyTimestampSchema } from './legacy-time.ts';

export const provenanceShape = defineShape({
  name: 'Provenance',
  schema: v.strictObject({
    resourceType: v.literal('Provenance'),
    id: v.nullable(v.string()),
    target: v.array(v.strictObject({ reference: v.string() })),
    recorded: v.nullable(legacyTimestampSchema),
    agent: v.array(
      v.strictObject({
        id: v.nullable(v.string()),
        onBehalfOf: v.nullable(v.strictObject({ display: v.nullable(v.string()), reference: v.nullable(v.string()) })),
        type: v.nullable(v.strictObject({ coding: v.array(systemCodeSchema) })),
        who: v.nullable(v.union([v.strictObject({ reference: v.string() }), v.strictObject({ display: v.string() })])),
      }),
    ),
  }),
  map: (provenance, context) => ({
    resourceType: 'Provenance',
    id: provenance.id ?? null,
    target: objects(provenance.target).flatMap((target) => {
      const reference = referenceOf(target);
      return reference ? [{ reference }] : [];
    }),
    recorded: context.time.timestamp(provenance.recorded) ?? null,
    agent: objects(provenance.agent).map((agent) => {
      const who = object(agent.who);
      const whoReference = referenceOf(who);
      const whoDisplay = text(who?.display);
      const onBehalfOf = object(agent.onBehalfOf);
      return {
        id: text(agent.id) ?? null,
        onBehalfOf: onBehalfOf ? { display: text(onBehalfOf.display) ?? null, reference: referenceOf(onBehalfOf) ?? null } : null,
        type: object(agent.type) ? { coding: systemCodes(agent.type) } : null,
        who: whoReference ? { reference: whoReference } : whoDisplay !== undefined ? { display: whoDisplay } : null,
      };
    }),
  }),
});
