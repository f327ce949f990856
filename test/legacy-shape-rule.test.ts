/**
 * One rule for every legacy shape (docs/decisions.md, "Members the upstream lacks"): a member the
 * spec shows is always written — `[]` for an array the upstream lacks, `null` for anything else —
 * and left out only where the spec says it may be absent, or where it carries a FHIR value the
 * spec does not show. The schemas say which; these tests hold every mapper of the route table to
 * its schema, key order included, on bare records and on the generated patients' records.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createMapContext, type LegacyShape } from '../mappers/legacy-shape.ts';
import { ROUTES } from '../src/routes.ts';
import type { FhirResource } from '../src/upstream/fhir-client.ts';
import { patientBundles, resourcesOf, shared } from './support/seed-fixtures.ts';

/** Every shape of the route table with the FHIR type it maps. */
const SHAPES = new Map<string, { shape: LegacyShape; fhirType: string }>();
for (const route of ROUTES) {
  SHAPES.set(route.shape.name, { shape: route.shape, fhirType: route.upstream.resourceType });
  const included = route.kind === 'search' ? (route.includedEntries ?? {}) : {};
  for (const [fhirType, shape] of Object.entries(included)) SHAPES.set(shape.name, { shape, fhirType });
}

/**
 * Every member a schema lets a mapper leave out, by shape. Each is an exception the decisions name:
 * the spec's own "optional" (a coding's `display`, a CodeableConcept's `text`), a member the spec
 * says is present only sometimes, or a FHIR value beyond the spec's (Observation's other value[x]).
 */
const MAY_BE_LEFT_OUT: Readonly<Record<string, readonly string[]>> = {
  Observation: [
    'category[].coding[].display',
    'category[].text',
    'code.coding[].display',
    'code.text',
    'valueCodeableConcept.text',
    'valueQuantity',
    'valueString',
    'valueBoolean',
    'valueInteger',
    'valueRange',
    'valueRatio',
    'valueSampledData',
    'valueTime',
    'valueDateTime',
    'valuePeriod',
    'dataAbsentReason',
    'dataAbsentReason.coding[].display',
    'dataAbsentReason.text',
    'component',
  ],
  Condition: [
    'clinicalStatus.coding[].display',
    'verificationStatus.coding[].display',
    'category[].coding[].display',
    'code.coding[].display',
    'abatementDateTime',
  ],
  DiagnosticReportSearchEntry: ['code.coding[].display', 'effectiveDateTime.dataAbsentReason.coding[].display', 'issued.dataAbsentReason.coding[].display'],
  DiagnosticReport: ['code.coding[].display', 'effectiveDateTime.dataAbsentReason.coding[].display', 'issued.dataAbsentReason.coding[].display'],
  CareTeam: ['participant[].role[].coding[].display'],
  AllergyIntolerance: ['code.coding[].display', 'code.text', 'reaction[].manifestation[].coding[].display', 'reaction[].manifestation[].text'],
  Immunization: ['vaccineCode.coding[].display', 'vaccineCode.text'],
  Assessment: ['code.coding[].display', 'code.text'],
  Goal: ['description.coding[].display', 'description.text'],
  Procedure: ['code.coding[].display'],
};

/**
 * The members of each shape in the order the spec lists them (spec section 2, and the old system's
 * examples in ../shared/LEGACY-WIRE.md for Observation and Provenance), copied from there by hand:
 * the schemas must follow it, and the mappers their schema. `id` on Goal and Specimen is ours
 * (docs/decisions.md) and stands after `resourceType`.
 */
const SPEC_ORDER: Readonly<Record<string, readonly string[]>> = {
  DiagnosticReport: [
    'resourceType',
    'id',
    'meta',
    'category',
    'encounter',
    'presentedForm',
    'status',
    'code',
    'subject',
    'effectiveDateTime',
    'issued',
    'performer',
    'result',
  ],
  DiagnosticReportSearchEntry: [
    'resourceType',
    'meta',
    'category',
    'encounter',
    'presentedForm',
    'status',
    'code',
    'subject',
    'effectiveDateTime',
    'issued',
    'performer',
  ],
  CarePlan: ['resourceType', 'id', 'meta', 'text', 'status', 'intent', 'category', 'subject'],
  CareTeam: ['resourceType', 'id', 'meta', 'status', 'subject', 'participant'],
  AllergyIntolerance: ['resourceType', 'code', 'reaction', 'clinicalStatus', 'verificationStatus', 'patient'],
  Immunization: ['resourceType', 'occurrenceDateTime', 'status', 'statusReason', 'vaccineCode', 'patient', 'primarySource'],
  Condition: [
    'resourceType',
    'id',
    'meta',
    'clinicalStatus',
    'verificationStatus',
    'category',
    'code',
    'subject',
    'recordedDate',
    'onsetDateTime',
    'abatementDateTime',
    'encounter',
  ],
  Encounter: [
    'resourceType',
    'id',
    'meta',
    'identifier',
    'status',
    'class',
    'type',
    'subject',
    'participant',
    'period',
    'reasonCode',
    'hospitalization',
    'location',
    'serviceProvider',
  ],
  Assessment: ['resourceType', 'meta', 'status', 'code', 'subject', 'effectiveDateTime'],
  Coverage: ['resourceType', 'id', 'identifier', 'type', 'status', 'subscriber', 'beneficiary', 'relationship', 'subscriberId', 'period', 'payor', 'Class'],
  Observation: ['resourceType', 'id', 'status', 'issued', 'category', 'code', 'subject', 'effectiveDateTime', 'valueCodeableConcept'],
  Provenance: ['resourceType', 'id', 'target', 'recorded', 'agent'],
  Procedure: ['resourceType', 'id', 'meta', 'status', 'code', 'subject', 'performedPeriod'],
  Order: ['resourceType', 'code', 'effectiveDateTime', 'basedOn', 'conclusionCode', 'result'],
  Goal: ['resourceType', 'id', 'lifecycleStatus', 'description', 'subject', 'target'],
  Specimen: ['resourceType', 'id', 'type', 'subject', 'collection', 'container'],
  Practitioner: ['resourceType', 'id', 'meta', 'identifier', 'name', 'telecom', 'address'],
};

/** valibot wrappers that let a member be left out, and all wrappers of one inner schema. */
const LEFT_OUT_WRAPPERS = ['optional', 'exact_optional', 'undefinedable', 'nullish'];
const WRAPPERS = [...LEFT_OUT_WRAPPERS, 'nullable'];

type AnySchema = v.GenericSchema & { type: string; wrapped?: AnySchema; item?: AnySchema; options?: AnySchema[]; entries?: Record<string, AnySchema> };

/** Paths of the members a strict schema marks optional (as-written FHIR values, loose objects, are not the legacy shape's). */
function optionalPaths(schema: AnySchema, path = ''): string[] {
  if (WRAPPERS.includes(schema.type)) return optionalPaths(schema.wrapped!, path);
  switch (schema.type) {
    case 'array':
      return optionalPaths(schema.item!, `${path}[]`);
    case 'union':
      return [...new Set(schema.options!.flatMap((option) => optionalPaths(option, path)))];
    case 'strict_object':
      return Object.entries(schema.entries!).flatMap(([key, member]) => {
        const memberPath = path === '' ? key : `${path}.${key}`;
        return [...(LEFT_OUT_WRAPPERS.includes(member.type) ? [memberPath] : []), ...optionalPaths(member, memberPath)];
      });
    default:
      return [];
  }
}

/** Checks that every strict object in `value` writes its keys in its schema's order. */
function expectSchemaKeyOrder(value: unknown, schema: AnySchema, path = '$'): void {
  if (value === null || value === undefined) return;
  if (WRAPPERS.includes(schema.type)) {
    expectSchemaKeyOrder(value, schema.wrapped!, path);
    return;
  }
  switch (schema.type) {
    case 'array':
      for (const [index, item] of (value as unknown[]).entries()) expectSchemaKeyOrder(item, schema.item!, `${path}[${index}]`);
      return;
    case 'union': {
      const option = schema.options!.find((candidate) => v.safeParse(candidate, value).success);
      if (option) expectSchemaKeyOrder(value, option, path);
      return;
    }
    case 'strict_object': {
      const order = Object.keys(schema.entries!);
      const keys = Object.keys(value as object);
      expect(keys, `key order at ${path}`).toEqual(order.filter((key) => keys.includes(key)));
      for (const key of keys) expectSchemaKeyOrder((value as Record<string, unknown>)[key], schema.entries![key]!, `${path}.${key}`);
      return;
    }
    default:
  }
}

/** Every string in a value, with its path. */
function strings(value: unknown, path = '$'): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((item, index) => strings(item, `${path}[${index}]`));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, member]) => strings(member, `${path}.${key}`));
  return [];
}

function expectValid(shape: LegacyShape, output: unknown): void {
  const result = v.safeParse(shape.schema, output);
  expect(result.success, JSON.stringify(result.issues?.map((issue) => [issue.path?.map((p) => p.key).join('.'), issue.message]))).toBe(true);
}

describe.each([...SHAPES.values()].map(({ shape, fhirType }) => [shape.name, shape, fhirType] as const))('%s', (_, shape, fhirType) => {
  const bare: FhirResource = { resourceType: fhirType, id: 'bare-1' };
  const output = shape.map(bare, createMapContext([bare]));

  it("lists the spec's members first, in the spec's order", () => {
    const keys = Object.keys((shape.schema as AnySchema).entries ?? {});
    expect(keys.slice(0, SPEC_ORDER[shape.name]?.length)).toEqual(SPEC_ORDER[shape.name]);
  });

  it('maps a record with nothing but its type and id to a payload its schema accepts', () => {
    expectValid(shape, output);
    expectSchemaKeyOrder(output, shape.schema as AnySchema);
  });

  it('invents no value for what the record lacks: no empty string, no "unknown" beyond the spec\'s absent-reason stand-in', () => {
    const invented = strings(output).filter(
      ([path, text]) => text === '' || (text.toLowerCase() === 'unknown' && !/\.(valueQuantity|dataAbsentReason)\./.test(path)),
    );
    expect(invented).toEqual([]);
  });

  it('lets only the members the decisions name be left out', () => {
    expect(optionalPaths(shape.schema as AnySchema).sort()).toEqual([...(MAY_BE_LEFT_OUT[shape.name] ?? [])].sort());
  });

  it("maps every generated patient's records in the schema's key order", () => {
    let mapped = 0;
    for (const bundle of patientBundles.slice(0, 3)) {
      // The shared directory (Practitioners, Organizations) first: included records name them.
      const resources = [...resourcesOf(shared), ...resourcesOf(bundle)] as FhirResource[];
      const context = createMapContext(resources);
      for (const resource of resources.filter((candidate) => candidate.resourceType === fhirType)) {
        const record = shape.map(resource, context);
        expectValid(shape, record);
        expectSchemaKeyOrder(record, shape.schema as AnySchema);
        mapped += 1;
      }
    }
    expect(mapped).toBeGreaterThan(0);
  });
});
