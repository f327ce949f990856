/**
 * No upstream value makes a mapper throw (a 500): every member of real records, and every member
 * of their members, replaced in turn by a value of each other JSON type. What comes out is still a
 * JSON value; whether it is a good payload is the shape tests' business.
 */
import { describe, expect, it } from 'vitest';
import { createMapContext } from '../mappers/legacy-shape.ts';
import { ROUTES } from '../src/routes.ts';
import type { FhirResource } from '../src/upstream/fhir-client.ts';
import { patientBundles, resourcesOf, shared } from './support/seed-fixtures.ts';

/** Every JSON type, and strings that name what every JS object inherits. */
const HOSTILE_VALUES: readonly unknown[] = [
  null,
  true,
  0,
  -1.5,
  '',
  'x',
  'constructor',
  '__proto__',
  [],
  [null],
  [1, 'a'],
  {},
  { reference: 7 },
  [{ coding: 'x' }],
  { coding: [{ code: 5 }] },
];

/** Each record with one member (at depth 1 or 2) replaced by a hostile value. */
function* variants(resource: FhirResource): Generator<FhirResource> {
  for (const [key, member] of Object.entries(resource)) {
    if (key === 'resourceType' || key === 'id') continue;
    for (const value of HOSTILE_VALUES) yield { ...resource, [key]: value };
    const inner = Array.isArray(member) ? member[0] : member;
    if (typeof inner !== 'object' || inner === null) continue;
    for (const innerKey of Object.keys(inner)) {
      for (const value of HOSTILE_VALUES) {
        const changed = { ...inner, [innerKey]: value };
        yield { ...resource, [key]: Array.isArray(member) ? [changed, ...member.slice(1)] : changed };
      }
    }
  }
}

const shapes = new Map(
  ROUTES.flatMap((route) => [
    [route.shape.name, { shape: route.shape, type: route.upstream.resourceType }] as const,
    ...Object.entries(route.kind === 'search' ? (route.includedEntries ?? {}) : {}).map(([type, shape]) => [shape.name, { shape, type }] as const),
  ]),
);
const records = [...resourcesOf(shared), ...resourcesOf(patientBundles[0]!)] as FhirResource[];

describe.each([...shapes.values()].map(({ shape, type }) => [shape.name, shape, type] as const))('%s', (_, shape, type) => {
  it('maps every record with any member of any JSON type without throwing', () => {
    const samples = records.filter((resource) => resource.resourceType === type).slice(0, 3);
    expect(samples.length).toBeGreaterThan(0);
    let mapped = 0;
    for (const sample of samples) {
      for (const variant of variants(sample)) {
        expect(() => JSON.stringify(shape.map(variant, createMapContext([variant])))).not.toThrow();
        mapped += 1;
      }
    }
    expect(mapped).toBeGreaterThan(samples.length);
  });

  it('maps a record whose included records (named by it, or naming it) hold any member of any JSON type', () => {
    // The generated records name each other by urn:uuid; the patient is named by id here, as an upstream does.
    const found = records.find((resource) => resource.resourceType === type)!;
    const sample: FhirResource = {
      ...found,
      id: 'own-1',
      ...Object.fromEntries(['subject', 'patient', 'beneficiary'].filter((key) => key in found).map((key) => [key, { reference: 'Patient/other-1' }])),
    };
    let mapped = 0;
    for (const included of hostileIncluded(sample)) {
      expect(() => JSON.stringify(shape.map(sample, createMapContext([sample, included])))).not.toThrow();
      mapped += 1;
    }
    expect(mapped).toBeGreaterThan(0);
  });
});

describe('codes that name what every JS object inherits', () => {
  it('are unknown codes, not the inherited members (an Encounter class `constructor` has no display)', () => {
    const encounter = shapes.get('Encounter')!.shape;
    for (const code of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const output = encounter.map(
        { resourceType: 'Encounter', id: 'e1', class: { code }, type: [{ coding: [{ system: code, code }] }] },
        createMapContext([]),
      );
      expect(output.class).toEqual({ code, system: null, display: null });
      expect(JSON.parse((output.identifier as { value: string }[])[0]!.value).code_system_name).toBeNull();
    }
  });
});

/** Types an upstream answer carries beside the records asked for (`_include`, `_revinclude`). */
const INCLUDED_TYPES = [
  'Patient',
  'Practitioner',
  'Organization',
  'Location',
  'Condition',
  'DocumentReference',
  'ServiceRequest',
  'DiagnosticReport',
  'Provenance',
];
/** Members the mappers read on included records. */
const INCLUDED_MEMBERS = [
  'name',
  'text',
  'code',
  'type',
  'content',
  'author',
  'date',
  'status',
  'conclusionCode',
  'result',
  'reasonCode',
  'period',
  'category',
];

/**
 * Included records with one hostile member each, linked every way a mapper follows: named by the
 * record (the id it names for that type) and naming it back (`encounter`, `basedOn`, `target`, `subject`).
 */
function* hostileIncluded(resource: FhirResource): Generator<FhirResource> {
  const self = { reference: `${resource.resourceType}/${resource.id}` };
  const named = new Map([...JSON.stringify(resource).matchAll(/"reference":"(?:[^"]*\/)?([A-Z][A-Za-z]+)\/([^"/]+)"/g)].map((match) => [match[1]!, match[2]!]));
  for (const includedType of INCLUDED_TYPES) {
    const linked = { resourceType: includedType, id: named.get(includedType) ?? 'other-1', encounter: self, basedOn: [self], target: [self], subject: self };
    for (const member of INCLUDED_MEMBERS) {
      for (const value of HOSTILE_VALUES) yield { ...linked, [member]: value };
    }
  }
}
