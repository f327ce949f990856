/**
 * Encounter (spec 2.9). Its one identifier holds the serialized internal record (encounter-record.ts);
 * the rest follows the FHIR Encounter with the legacy's nulls for unknown ends and displays. Period
 * ends are clinical timestamps, in the old system's form (docs/decisions.md, "Timestamps").
 */
import * as v from 'valibot';
import {
  legacyMeta,
  metaSchema,
  object,
  objects,
  ownEntry,
  referenceOf,
  referenceSchema,
  systemCodeSchema,
  systemCodes,
  text,
  type Json,
} from './fhir-values.ts';
import { encounterRecordJson } from './encounter-record.ts';
import { defineShape, type MapContext } from './legacy-shape.ts';
import { legacyTimestampSchema } from './legacy-time.ts';

const ACT_CODE_DISPLAYS: Record<string, string> = {
  AMB: 'ambulatory',
  EMER: 'emergency',
  FLD: 'field',
  HH: 'home health',
  IMP: 'inpatient encounter',
  ACUTE: 'inpatient acute',
  NONAC: 'inpatient non-acute',
  OBSENC: 'observation encounter',
  PRENC: 'pre-admission',
  SS: 'short stay',
  VR: 'virtual',
};

/** The type of the identifier that carries the record (docs/decisions.md). */
const RECORD_IDENTIFIER_TYPE = { coding: [{ code: 'ENCREC', display: 'Encounter record' }], text: 'Encounter record' };

const codeDisplaySchema = v.strictObject({ code: v.nullable(v.string()), display: v.nullable(v.string()) });
const periodSchema = v.strictObject({ start: v.nullable(legacyTimestampSchema), end: v.nullable(legacyTimestampSchema) });

function period(value: unknown, { time }: MapContext): Json {
  const written = object(value);
  return { start: time.timestamp(written?.start) ?? null, end: time.timestamp(written?.end) ?? null };
}

export const encounterShape = defineShape({
  name: 'Encounter',
  schema: v.strictObject({
    resourceType: v.literal('Encounter'),
    id: v.nullable(v.string()),
    meta: metaSchema,
    identifier: v.pipe(
      v.array(
        v.strictObject({
          type: v.strictObject({ coding: v.array(codeDisplaySchema), text: v.string() }),
          system: v.nullable(v.string()),
          value: v.string(),
        }),
      ),
      v.length(1),
    ),
    status: v.nullable(v.string()),
    class: v.nullable(v.strictObject({ code: v.nullable(v.string()), system: v.nullable(v.string()), display: v.nullable(v.string()) })),
    type: v.array(v.strictObject({ coding: v.array(v.strictObject({ code: v.nullable(v.string()), system: v.nullable(v.string()) })) })),
    subject: v.nullable(referenceSchema),
    participant: v.array(
      v.strictObject({
        type: v.array(v.strictObject({ coding: v.array(codeDisplaySchema), text: v.nullable(v.string()) })),
        period: periodSchema,
        individual: v.nullable(v.strictObject({ reference: v.string(), display: v.nullable(v.string()) })),
      }),
    ),
    period: periodSchema,
    reasonCode: v.array(v.strictObject({ coding: v.array(systemCodeSchema) })),
    hospitalization: v.nullable(v.strictObject({ dischargeDisposition: v.strictObject({ coding: v.array(systemCodeSchema) }) })),
    location: v.array(v.strictObject({ location: referenceSchema })),
    serviceProvider: v.nullable(v.strictObject({ reference: v.string(), type: v.string() })),
  }),
  map: (encounter, context) => {
    const encounterClass = object(encounter.class);
    const classCode = text(encounterClass?.code);
    const subject = referenceOf(encounter.subject);
    const disposition = object(object(encounter.hospitalization)?.dischargeDisposition);
    const provider = referenceOf(encounter.serviceProvider);
    return {
      resourceType: 'Encounter',
      id: encounter.id ?? null,
      meta: legacyMeta(encounter),
      identifier: [{ type: RECORD_IDENTIFIER_TYPE, system: null, value: encounterRecordJson(encounter, context) }],
      status: text(encounter.status) ?? null,
      class: encounterClass
        ? {
            code: classCode ?? null,
            system: text(encounterClass.system) ?? null,
            display: text(encounterClass.display) ?? ownEntry(ACT_CODE_DISPLAYS, classCode) ?? null,
          }
        : null,
      type: objects(encounter.type).map((type) => ({
        coding: objects(type.coding).map((coding) => ({ code: text(coding.code) ?? null, system: text(coding.system) ?? null })),
      })),
      subject: subject ? { reference: subject } : null,
      participant: objects(encounter.participant).map((participant) => {
        const individual = object(participant.individual);
        const reference = referenceOf(individual);
        return {
          type: objects(participant.type).map((type) => ({
            coding: objects(type.coding).map((coding) => ({ code: text(coding.code) ?? null, display: text(coding.display) ?? null })),
            text: text(type.text) ?? null,
          })),
          period: period(participant.period, context),
          individual: reference ? { reference, display: text(individual?.display) ?? null } : null,
        };
      }),
      period: period(encounter.period, context),
      reasonCode: objects(encounter.reasonCode).map((concept) => ({ coding: systemCodes(concept) })),
      hospitalization: disposition ? { dischargeDisposition: { coding: systemCodes(disposition) } } : null,
      location: objects(encounter.location).flatMap((item) => {
        const reference = referenceOf(item.location);
        return reference ? [{ location: { reference } }] : [];
      }),
      serviceProvider: provider ? { reference: provider, type: provider.split('/')[0] ?? 'Organization' } : null,
    };
  },
});
