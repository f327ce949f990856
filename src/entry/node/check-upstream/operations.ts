/**
 * The legacy requests `check-upstream` sends: one per operation of the route table, for one
 * patient. Searches ask for the patient's records (the Observation search with its Provenance, as
 * the interface allows); a by-id read asks for a record that the operation's own search found for
 * the patient. Built from the route table only: an operation added there is checked the day it lands.
 */
import type { ReadRoute, Route, SearchRoute } from '../../../route-types.ts';
import { ROUTES } from '../../../routes.ts';

/** What the interface lets a search ask beside the patient, to check the whole operation. */
const EXTRA_SEARCH_PARAMS: Readonly<Partial<Record<Route['params'][number], string>>> = { _revinclude: 'Provenance:target' };

/** A legacy request as `app.fetch` takes it (the token goes apart, as a Bearer header). */
export interface LegacyRequest {
  method: 'GET' | 'POST';
  /** Path and query, e.g. `/api/CarePlan?patient=1`; a POST's parameters go in its form body. */
  path: string;
  form: string | undefined;
}

/** The search request of a search route for the patient. */
export function searchRequest(route: SearchRoute, patient: string): LegacyRequest {
  const query = new URLSearchParams();
  if (route.params.includes('patient')) query.set('patient', patient);
  for (const name of route.params) {
    const value = EXTRA_SEARCH_PARAMS[name];
    if (value !== undefined) query.set(name, value);
  }
  const text = query.toString();
  if (route.method === 'POST') return { method: 'POST', path: route.path, form: text };
  return { method: 'GET', path: text === '' ? route.path : `${route.path}?${text}`, form: undefined };
}

/** The read request of a read route for a record id. */
export function readRequest(route: ReadRoute, id: string): LegacyRequest {
  return { method: 'GET', path: route.path.replace(':id', encodeURIComponent(id)), form: undefined };
}

/**
 * The search whose answer gives a read its record: the GET search of the same resource type at the
 * read's path without `/:id` (`/api/CarePlan/:id` → `/api/CarePlan`), else any GET search of the type.
 */
export function searchForRead(read: ReadRoute, routes: readonly Route[] = ROUTES): SearchRoute | undefined {
  const searches = routes.filter((route): route is SearchRoute => route.kind === 'search' && route.method === 'GET');
  const sameType = searches.filter((search) => search.upstream.resourceType === read.upstream.resourceType);
  return sameType.find((search) => search.path === read.path.replace(/\/:id$/, '')) ?? sameType[0];
}

/** The ids of records of `resourceType` in a legacy Bundle answer, from its entries' `full_url`s. */
export function recordIds(body: unknown, resourceType: string): string[] {
  const prefix = `/${resourceType}/`;
  if (typeof body !== 'object' || body === null) return [];
  const entries = (body as { entry?: unknown }).entry;
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry) => {
    const fullUrl = typeof entry === 'object' && entry !== null ? (entry as { full_url?: unknown }).full_url : undefined;
    return typeof fullUrl === 'string' && fullUrl.startsWith(prefix) && fullUrl.length > prefix.length ? [fullUrl.slice(prefix.length)] : [];
  });
}
