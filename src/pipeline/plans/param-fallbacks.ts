/**
 * Search parameters the upstream does not take (its CapabilityStatement leaves them out): the form
 * it does take, or the same filter applied here after the search (docs/decisions.md, "Search
 * parameters the upstream does not take"). Only filters whose semantics are known here are moved:
 * the patient, a token (`code`, `category`, `status`) and the date parameters the route table uses
 * (date-filter.ts); anything else stays in the query, and a strict server's 400 stays a 502.
 */
import { ownEntry, type FhirResource } from '../../fhir/primitives.ts';
import type { UpstreamCapabilities } from '../../upstream/capabilities.ts';
import type { SearchParams } from '../../upstream/fhir-client.ts';
import { isFilterableDate, matchesDate } from './date-filter.ts';

/** A filter applied to the matches after the search, in place of a parameter the server lacks. */
export interface PostFilter {
  /** The parameter it stands for, for /metrics. */
  param: string;
  keep(resource: FhirResource): boolean;
}

/** Token parameters and the element each searches (FHIR R4: the same name on every type used here). */
const TOKEN_ELEMENTS: Readonly<Record<string, string>> = { code: 'code', category: 'category', status: 'status' };

/** The query the upstream takes, the filters that stand in for what it does not, and the parameters put another way. */
export function adaptParams(
  type: string,
  params: SearchParams,
  capabilities: UpstreamCapabilities,
): { params: SearchParams; filters: PostFilter[]; substituted: string[] } {
  const adapted: [string, string][] = [];
  const filters: PostFilter[] = [];
  const substituted: string[] = [];
  for (const [name, value] of params) {
    const tokenElement = ownEntry(TOKEN_ELEMENTS, name);
    if (capabilities.param(type, name) !== 'no') {
      adapted.push([name, value]);
    } else if (name === 'patient' && capabilities.param(type, 'subject') !== 'no') {
      // FHIR's `patient` is `subject` restricted to Patients: with the typed reference, the same records.
      adapted.push(['subject', value]);
      substituted.push('patient');
    } else if (tokenElement !== undefined) {
      filters.push({ param: name, keep: (resource) => matchesToken(resource[tokenElement], value) });
    } else if (isFilterableDate(type, name)) {
      filters.push({ param: name, keep: (resource) => matchesDate(resource, type, name, value) });
    } else {
      adapted.push([name, value]); // no exact stand-in: the server answers for it
    }
  }
  return { params: adapted, filters, substituted };
}

/**
 * FHIR token search on a code, Coding, CodeableConcept or a list of them: `code` matches any
 * coding with that code, `system|code` the coding with both, `|code` a coding without a system;
 * a comma-separated list matches any of its tokens (a site's codes may be several, src/site-codes.ts).
 */
export function matchesToken(element: unknown, value: string): boolean {
  return value.split(',').some((token) => matchesOneToken(element, token));
}

function matchesOneToken(element: unknown, value: string): boolean {
  const bar = value.indexOf('|');
  const system = bar === -1 ? undefined : value.slice(0, bar);
  const code = bar === -1 ? value : value.slice(bar + 1);
  const codings: { system?: unknown; code?: unknown }[] = [];
  for (const item of Array.isArray(element) ? element : [element]) {
    if (typeof item === 'string') codings.push({ code: item });
    else if (typeof item === 'object' && item !== null) {
      const concept = item as { coding?: unknown; code?: unknown; system?: unknown };
      if (Array.isArray(concept.coding)) codings.push(...concept.coding.filter((coding): coding is object => typeof coding === 'object' && coding !== null));
      else codings.push(concept);
    }
  }
  return codings.some((coding) => coding.code === code && (system === undefined || (system === '' ? coding.system === undefined : coding.system === system)));
}
