/**
 * CareTeam (spec 2.5). Each participant's `member` (a Practitioner or an Organization) carries a
 * display: the written one, else the name of the included resource. A participant without a member
 * keeps its role, with `member: null`, rather than being dropped.
 */
import * as v from 'valibot';
import { codings, codingSchema, displayedReferenceSchema, legacyMeta, metaSchema, objects, patientReferenceSchema, text } from './fhir-values.ts';
import { defineShape, namedReference, patientReference } from './legacy-shape.ts';

export const careTeamShape = defineShape({
  name: 'CareTeam',
  schema: v.strictObject({
    resourceType: v.literal('CareTeam'),
    id: v.nullable(v.string()),
    meta: metaSchema,
    status: v.nullable(v.string()),
    subject: v.nullable(patientReferenceSchema),
    participant: v.array(
      v.strictObject({
        role: v.array(v.strictObject({ coding: v.array(codingSchema) })),
        member: v.nullable(displayedReferenceSchema),
      }),
    ),
  }),
  map: (team, context) => ({
    resourceType: 'CareTeam',
    id: team.id ?? null,
    meta: legacyMeta(team),
    status: text(team.status) ?? null,
    subject: patientReference(team.subject, context) ?? null,
    participant: objects(team.participant).map((participant) => ({
      role: objects(participant.role).map((role) => ({ coding: codings(role) })),
      // namedReference names any reference whose target was included (displayName reads
      // Practitioner HumanNames and Organization name strings alike).
      member: namedReference(participant.member, context) ?? null,
    })),
  }),
});
