/**
 * Translates validated legacy parameters into FHIR search parameters, always in the same order so
 * equal requests make equal upstream URLs (stable for caches and recordings).
 */
import type { LegacyParams } from '../params.ts';
import type { Route } from '../route-types.ts';
import { selectorParam, type SiteCodes } from '../site-codes.ts';
import type { SearchParams } from '../upstream/fhir-client.ts';

/**
 * The FHIR search parameters of a search route, includes apart (src/pipeline/plans/ adds those it
 * sends); a route's selector becomes the site's codes for it.
 */
export function upstreamSearchParams(route: Route, params: LegacyParams, siteCodes: SiteCodes): SearchParams {
  const { upstream } = route;
  const query: [string, string][] = upstream.select === undefined ? [] : [selectorParam(upstream.select, siteCodes)];
  if (params.patient !== undefined) query.push(['patient', `Patient/${params.patient}`]);
  if (upstream.dateParam !== undefined) {
    if (params.start_date !== undefined) query.push([upstream.dateParam, `ge${params.start_date}`]);
    if (params.end_date !== undefined) query.push([upstream.dateParam, `le${params.end_date}`]);
    for (const date of params.date ?? []) query.push([upstream.dateParam, date]);
  }
  if (params.code !== undefined) query.push(['code', params.code]);
  if (params.category !== undefined) query.push(['category', params.category]);
  if (params.status !== undefined) query.push(['status', params.status]);
  return query;
}
