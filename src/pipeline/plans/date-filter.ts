/**
 * A date search parameter applied after the search, for a server that lacks it: FHIR R4's date
 * search on the calendar days the record writes (the written date, no time-zone conversion, as the
 * Coverage period filter compares; docs/decisions.md).
 */
import { isObject, ownEntry, type FhirResource } from '../../fhir/primitives.ts';
import { dateBound } from './type-strategies.ts';

/** The elements each date parameter searches (FHIR R4), a choice element by its prefix: `effective` is effectiveDateTime, effectivePeriod, … */
const DATE_ELEMENTS: Readonly<Record<string, readonly string[]>> = {
  'AllergyIntolerance:date': ['recordedDate'],
  'CarePlan:date': ['period'],
  'CareTeam:date': ['period'],
  'Condition:onset-date': ['onset'],
  'DiagnosticReport:date': ['effective'],
  'Goal:start-date': ['start'],
  'Immunization:date': ['occurrence'],
  'Observation:date': ['effective'],
  'Procedure:date': ['performed'],
  'ServiceRequest:authored': ['authoredOn'],
  'Specimen:collected': ['collection.collected'],
};

/** Whether the parameter is a date parameter this filter can stand in for. */
export function isFilterableDate(type: string, param: string): boolean {
  return ownEntry(DATE_ELEMENTS, `${type}:${param}`) !== undefined;
}

/** Keeps a record when one of its dates matches `value` (`ge2024-01-01`, `2024-03-05`, …) as FHIR date search does. */
export function matchesDate(resource: FhirResource, type: string, param: string, value: string): boolean {
  const match = /^(eq|ne|gt|lt|ge|le)?(\d{4}(?:-\d{2}(?:-\d{2})?)?)/.exec(value);
  if (!match) return false;
  const prefix = match[1] ?? 'eq';
  const low = dateBound(match[2], 'first')!;
  const high = dateBound(match[2], 'last')!;
  return rangesOf(resource, ownEntry(DATE_ELEMENTS, `${type}:${param}`) ?? []).some(([start, end]) => {
    switch (prefix) {
      case 'ge':
        return end >= low;
      case 'le':
        return start <= high;
      case 'gt':
        return end > high;
      case 'lt':
        return start < low;
      case 'ne':
        return !(start >= low && end <= high);
      default:
        return start >= low && end <= high;
    }
  });
}

/** The day ranges a record's date elements cover: a date its precision's days, a Period its days (open ends unbounded). */
function rangesOf(resource: FhirResource, paths: readonly string[]): [string, string][] {
  const ranges: [string, string][] = [];
  for (const path of paths) {
    const steps = path.split('.');
    const last = steps.pop()!;
    let holder: unknown = resource;
    for (const step of steps) holder = isObject(holder) ? holder[step] : undefined;
    if (!isObject(holder)) continue;
    for (const [key, value] of Object.entries(holder)) {
      if (key !== last && !(key.startsWith(last) && /^[A-Z]/.test(key.slice(last.length)))) continue;
      if (typeof value === 'string') {
        const start = dateBound(value, 'first');
        const end = dateBound(value, 'last');
        if (start !== undefined && end !== undefined) ranges.push([start, end]);
      } else if (isObject(value) && (value.start !== undefined || value.end !== undefined)) {
        ranges.push([dateBound(value.start, 'first') ?? '0000-01-01', dateBound(value.end, 'last') ?? '9999-12-31']);
      }
    }
  }
  return ranges;
}
