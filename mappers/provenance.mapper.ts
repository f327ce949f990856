/**
 * Provenance (spec 2.12), carried in Observation bundles for `_revinclude=Provenance:target`.
 * No `meta`; each agent's `who` is `{reference}` or, when the upstream has only a name, `{display}`.
 */
import * as v from 'valibot';
import { object, objects, referenceOf, systemCodeSchema, systemCodes, text, withDefined } from './fhir-values.ts';
import { defineShape } from './legacy-shape.ts';

export const provenanceShape = defineShape({
  name: 'Provenance',
  schema: v.strictObject({
    resourceType: v.literal('Provenance'),
    id: v.string(),
    target: v.array(v.strictObject({ reference: v.string() })),
    recorded: v.string(),
    agent: v.array(
      v.strictObject({
        id: v.optional(v.string()),
        onBehalfOf: v.optional(v.strictObject({ display: v.optional(v.string()), reference: v.optional(v.string()) })),
        type: v.optional(v.strictObject({ coding: v.array(systemCodeSchema) })),
        who: v.union([v.strictObject({ reference: v.string() }), v.strictObject({ display: v.string() })]),
      }),
    ),
  }),
  map: (provenance) => ({
    resourceType: 'Provenance',
    id: provenance.id ?? '',
    target: objects(provenance.target).flatMap((target) => {
      const reference = referenceOf(target);
      return reference ? [{ reference }] : [];
    }),
    recorded: text(provenance.recorded) ?? '',
    agent: objects(provenance.agent).map((agent) => {
      const who = object(agent.who);
      const whoReference = referenceOf(who);
      const onBehalfOf = object(agent.onBehalfOf);
      return withDefined({
        id: text(agent.id),
        onBehalfOf: onBehalfOf ? withDefined({ display: text(onBehalfOf.display), reference: referenceOf(onBehalfOf) }) : undefined,
        type: agent.type ? { coding: systemCodes(agent.type) } : undefined,
        who: whoReference ? { reference: whoReference } : { display: text(who?.display) ?? '' },
      });
    }),
  }),
});
