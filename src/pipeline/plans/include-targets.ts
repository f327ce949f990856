/**
 * FHIR facts about the `_include` and `_revinclude` values the route table uses: which elements of
 * the searched record an include follows, and which search finds what a revinclude brings. The
 * fallbacks (include-fallbacks.ts) fetch exactly these, so an answer built from them is the answer
 * the include would have given: no more records, no fewer.
 */
import { normalizeReference } from '../../fhir/primitives.ts';

/**
 * Elements an `_include=<Type>:<param>` follows, by `Type:param` (FHIR R4 search parameter paths).
 * `patient` on the clinical types is `subject` or `patient`, whichever the type has.
 */
const INCLUDE_PATHS: Readonly<Record<string, readonly string[]>> = {
  'AllergyIntolerance:patient': ['patient'],
  'CarePlan:patient': ['subject'],
  'CareTeam:patient': ['subject'],
  'CareTeam:participant': ['participant.member'],
  'Condition:patient': ['subject'],
  'DiagnosticReport:patient': ['subject'],
  'Encounter:patient': ['subject'],
  'Encounter:location': ['location.location'],
  'Encounter:participant': ['participant.individual'],
  'Encounter:diagnosis': ['diagnosis.condition'],
  'Goal:patient': ['subject'],
  'Immunization:patient': ['patient'],
  'Observation:patient': ['subject'],
  'Procedure:patient': ['subject'],
  'Specimen:patient': ['subject'],
};

/** Types a `:patient` include can bring: only the Patient (a `subject` may name a Group). */
const TARGET_TYPES: Readonly<Record<string, readonly string[] | undefined>> = { patient: ['Patient'] };

/** The element paths an include follows, and the types it may bring (undefined: any type). */
export function includePaths(include: string): { paths: readonly string[]; types: readonly string[] | undefined } | undefined {
  const paths = Object.hasOwn(INCLUDE_PATHS, include) ? INCLUDE_PATHS[include] : undefined;
  if (paths === undefined) return undefined;
  const param = include.split(':')[1] ?? '';
  return { paths, types: Object.hasOwn(TARGET_TYPES, param) ? TARGET_TYPES[param] : undefined };
}

/** A `_revinclude=<Type>:<param>` as the search that finds the same records: `<Type>?<param>=<refs>`. */
export function reverseSearch(revinclude: string): { resourceType: string; param: string } | undefined {
  const match = /^([A-Z][A-Za-z]+):([a-z][a-z-]*)$/.exec(revinclude);
  return match ? { resourceType: match[1]!, param: match[2]! } : undefined;
}

/** The `Type/id` references at a dotted element path of a resource (arrays walked at every step). */
export function referencesAt(resource: Record<string, unknown>, path: string): string[] {
  let values: unknown[] = [resource];
  for (const step of path.split('.')) {
    values = values.flatMap((value) => {
      const member = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[step] : undefined;
      return Array.isArray(member) ? member : member === undefined ? [] : [member];
    });
  }
  return values.flatMap((value) => {
    const reference = typeof value === 'object' && value !== null ? (value as { reference?: unknown }).reference : undefined;
    const normalized = normalizeReference(reference);
    return normalized === undefined ? [] : [normalized];
  });
}
