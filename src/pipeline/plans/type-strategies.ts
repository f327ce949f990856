/**
 * FHIR facts about the types whose search lacks a parameter a legacy operation filters by, and how
 * the plans stand in for it (route-plan.ts): the route table says what is asked, not how.
 */
import { datePart, ownEntry, type FhirResource } from '../../fhir/primitives.ts';
import type { LegacyParams } from '../../params.ts';

/** Types with no `patient` search parameter: a patient's records of another type, whose include brings them. */
const PATIENT_SCOPES: Readonly<Record<string, { resourceType: string; include: string }>> = {
  // A practitioner "of a patient" is one who took part in the patient's encounters.
  Practitioner: { resourceType: 'Encounter', include: 'Encounter:participant' },
};

/** The search that finds a patient's records of `type` when `type` has no `patient` parameter. */
export function patientScopeOf(type: string): { resourceType: string; include: string } | undefined {
  return ownEntry(PATIENT_SCOPES, type);
}

/** Types with no date search parameter in FHIR R4: the Period element `start_date`/`end_date` are compared with here. */
const PERIOD_ELEMENTS: Readonly<Record<string, string>> = { Coverage: 'period' };

/** `start_date` / `end_date` against a Period element: kept when the period overlaps the range. */
export function filterByPeriod(type: string, resources: FhirResource[], params: LegacyParams): FhirResource[] {
  const { start_date: from, end_date: to } = params;
  const element = ownEntry(PERIOD_ELEMENTS, type);
  if (element === undefined || (from === undefined && to === undefined)) return resources;
  return resources.filter((resource) => {
    const period = resource[element] as { start?: unknown; end?: unknown } | undefined;
    const start = dateBound(period?.start, 'first');
    const end = dateBound(period?.end, 'last');
    // As in FHIR date search, a record with no period at all does not match a date filter.
    if (start === undefined && end === undefined) return false;
    return (to === undefined || start === undefined || start <= to) && (from === undefined || end === undefined || end >= from);
  });
}

/** The first or last day a FHIR date of any precision (`2019`, `2019-05`, `2019-05-04…`) covers. */
export function dateBound(value: unknown, which: 'first' | 'last'): string | undefined {
  if (typeof value !== 'string') return undefined;
  const day = datePart(value);
  if (day !== undefined) return day;
  const partial = /^(\d{4})(?:-(\d{2}))?$/.exec(value);
  if (!partial) return undefined;
  const [, year, month] = partial;
  if (which === 'first') return `${year}-${month ?? '01'}-01`;
  if (month === undefined) return `${year}-12-31`;
  const lastDay = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate();
  return `${year}-${month}-${String(lastDay).padStart(2, '0')}`;
}
