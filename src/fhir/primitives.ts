/**
 * The FHIR primitives both the mappers and the service read records with: the record type, JSON
 * objects, references as `Type/id`, dates, and whose patient a record is. One home, so neither
 * side borrows them from the other (mappers/fhir-values.ts passes them on to the mappers).
 */
import { BoundedMemo } from './bounded-memo.ts';

/** A FHIR resource as the service sees it: only `resourceType` and `id` are relied on. */
export interface FhirResource {
  resourceType: string;
  id?: string;
  [key: string]: unknown;
}

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `table[key]` for a key that comes from outside (an upstream code, a resource type): only the
 * table's own entries, so `constructor` or `__proto__` never finds what every object inherits.
 */
export function ownEntry<T>(table: Readonly<Record<string, T>> | undefined, key: string | undefined): T | undefined {
  return table !== undefined && key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

/**
 * `Type/id` from a relative, absolute or versioned FHIR reference; undefined for other forms.
 * Remembered: every mapper reads references, and an answer repeats the same ones (its patient, its
 * encounters); a regular expression per reference was a tenth of mapping (docs/performance.md).
 */
export function normalizeReference(reference: unknown): string | undefined {
  if (typeof reference !== 'string') return undefined;
  // Long references are not kept: the memo's bytes stay bounded by its count.
  if (reference.length > MAX_REMEMBERED_REFERENCE) return parseReference(reference);
  const known = normalized.get(reference);
  if (known !== undefined) return known === NOT_A_REFERENCE ? undefined : known;
  const parsed = parseReference(reference);
  normalized.set(reference, parsed ?? NOT_A_REFERENCE);
  return parsed;
}

function parseReference(reference: string): string | undefined {
  const match = /(?:^|\/)([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[^/]+)?$/.exec(reference);
  return match ? `${match[1]}/${match[2]}` : undefined;
}

const normalized = new BoundedMemo(20_000);
const MAX_REMEMBERED_REFERENCE = 256;
/** What the memo keeps for a text that is no reference (a reference is never empty). */
const NOT_A_REFERENCE = '';

/** `YYYY-MM-DD` as written in a FHIR date, dateTime or instant (no time-zone conversion). */
export function datePart(value: unknown): string | undefined {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : undefined;
}

/** The element naming a record's patient where it is neither `subject` nor `patient` (a FHIR fact, one place). */
const PATIENT_ELEMENT: Readonly<Record<string, string>> = { Coverage: 'beneficiary' };

/** The id of the patient a record belongs to: Coverage's `beneficiary`, else `subject`, else `patient`. */
export function patientOf(resource: FhirResource): string | undefined {
  if (resource.resourceType === 'Patient') return resource.id;
  const element = ownEntry(PATIENT_ELEMENT, resource.resourceType);
  const owner = element === undefined ? (resource.subject ?? resource.patient) : resource[element];
  const reference = isObject(owner) ? owner.reference : undefined;
  const normalized = normalizeReference(reference);
  return normalized?.startsWith('Patient/') ? normalized.slice('Patient/'.length) : undefined;
}
