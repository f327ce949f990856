// Runs a parsed search against the store and builds the `searchset` Bundle: candidate selection
// through the indexes, filtering, stable ordering, paging, _include/_revinclude and links.
import type { Bundle, BundleEntry, BundleLink, Resource } from '@medplum/fhirtypes';
import type { TypedValue } from '@medplum/core';
import {
  convertToSearchableDates,
  convertToSearchableNumbers,
  convertToSearchableQuantities,
  convertToSearchableTokens,
  typedValueToString,
} from '@medplum/core';
import type { ResourcePredicate } from './criterion-match.ts';
import { compileCriterion, paramValues } from './criterion-match.ts';
import type { IndexedMemoryRepository, StoredResource } from './resource-store.ts';
import { compareIds, referencesOf } from './resource-store.ts';
import type { IncludeSpec, ParsedSearch, SearchCriterion, SortKey } from './search-request.ts';
import { subsetResource } from './subset.ts';

export interface SearchContext {
  readonly store: IndexedMemoryRepository;
  /** This server's base, e.g. http://127.0.0.1:8081/fhir: for fullUrl, links and absolute references. */
  readonly baseUrl: string;
}

/** `_include:iterate` stops after this many rounds even if new resources keep appearing. */
const MAX_INCLUDE_ROUNDS = 10;

export function executeSearch(ctx: SearchContext, search: ParsedSearch): Bundle {
  const matches = findMatches(ctx, search);
  const page = search.count === 0 ? [] : matches.slice(search.offset, search.offset + search.count);
  const included = collectIncludes(ctx, search, page);
  const entry: BundleEntry[] = [...page.map((r) => toEntry(ctx, search, r, 'match')), ...included.map((r) => toEntry(ctx, search, r, 'include'))];
  return {
    resourceType: 'Bundle',
    id: crypto.randomUUID(),
    meta: { lastUpdated: new Date().toISOString() },
    type: 'searchset',
    total: matches.length,
    link: pageLinks(ctx, search, matches.length),
    ...(entry.length > 0 ? { entry } : {}),
  };
}

/** Every match of the search's criteria, in the server's stable order (or the requested _sort). */
export function findMatches(ctx: SearchContext, search: ParsedSearch): StoredResource[] {
  const { store } = ctx;
  const type = search.resourceType;
  let candidateIds: Set<string> | undefined;
  const predicates: ResourcePredicate[] = [];

  for (const criterion of search.criteria) {
    const ids = indexedIds(ctx, type, criterion);
    if (ids) {
      candidateIds = candidateIds ? intersect(candidateIds, ids) : ids;
    } else {
      predicates.push(compileCriterion(criterion, referenceTargets(ctx, criterion)));
    }
  }

  const ids = candidateIds ? [...candidateIds].sort(compareIds) : store.getSortedIds(type);
  const matches: StoredResource[] = [];
  for (const id of ids) {
    const resource = store.getStored(type, id);
    if (resource && predicates.every((p) => p(resource))) {
      matches.push(resource);
    }
  }
  return search.sort.length > 0 ? sortResources(matches, search.sort) : matches;
}

/**
 * The ids matching a criterion straight from an index (plain reference criteria, `_id`), or
 * undefined when the criterion has to be evaluated resource by resource.
 */
function indexedIds(ctx: SearchContext, type: string, criterion: SearchCriterion): Set<string> | undefined {
  if (criterion.code === '_id' && criterion.modifier === '') {
    return new Set(criterion.values);
  }
  const { modifier } = criterion;
  if (criterion.param.type === 'reference' && modifier !== 'missing' && modifier !== 'identifier') {
    return ctx.store.findReferencing(type, criterion.code, referenceTargets(ctx, criterion));
  }
  return undefined;
}

/**
 * The reference strings a reference criterion matches: `Patient/12` as given, a bare id as
 * `<Target>/<id>` for every target type of the parameter (or just the `:Type` modifier's), and an
 * absolute URL on this server's base as `Type/id`. Other absolute URLs match literally.
 */
export function referenceTargets(ctx: SearchContext, criterion: SearchCriterion): Set<string> {
  const result = new Set<string>();
  if (criterion.param.type !== 'reference') {
    return result;
  }
  const typeModifier = criterion.modifier && criterion.modifier !== 'identifier' ? criterion.modifier : undefined;
  for (const raw of criterion.values) {
    let value = raw.startsWith(`${ctx.baseUrl}/`) ? raw.slice(ctx.baseUrl.length + 1) : raw;
    value = value.replace(/\/_history\/.*$/, '');
    if (value.includes('/') || value.includes(':')) {
      result.add(value);
    } else {
      for (const target of typeModifier ? [typeModifier] : (criterion.param.target ?? [])) {
        result.add(`${target}/${value}`);
      }
    }
  }
  return result;
}

function intersect(a: Set<string>, b: Set<string>): Set<string> {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  return new Set([...small].filter((id) => large.has(id)));
}

type SortValue = string | number | undefined;

/** _sort: each key compared in turn; resources lacking a value go last; ties keep id order. */
function sortResources(resources: StoredResource[], keys: readonly SortKey[]): StoredResource[] {
  const decorated = resources.map((resource) => ({
    resource,
    values: keys.map((key) => sortValue(paramValues(resource, key), key)),
  }));
  decorated.sort((a, b) => {
    for (let i = 0; i < keys.length; i++) {
      const x = a.values[i];
      const y = b.values[i];
      if (x === y) {
        continue;
      }
      if (x === undefined || y === undefined) {
        return x === undefined ? 1 : -1;
      }
      const order = x < y ? -1 : 1;
      return keys[i]?.descending ? -order : order;
    }
    return 0;
  });
  return decorated.map((d) => d.resource);
}

/** One comparable value per resource: the lowest for ascending sorts, the highest for descending. */
function sortValue(values: TypedValue[], key: SortKey): SortValue {
  const pick = <T>(items: T[]): T | undefined => {
    const sorted = [...items].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return key.descending ? sorted[sorted.length - 1] : sorted[0];
  };
  if (key.param.code === '_id') {
    // Same order as compareIds: numeric ids by value, before the others
    return pick(values.map((v) => String(v.value)).map((id) => (/^\d+$/.test(id) ? `0${id.padStart(64, '0')}` : `1${id}`)));
  }
  switch (key.param.type) {
    case 'date':
      return pick(convertToSearchableDates(values).map((p) => (key.descending ? (p.end ?? p.start) : (p.start ?? p.end)) ?? ''));
    case 'number':
      return pick(convertToSearchableNumbers(values).map(([lo, hi]) => (key.descending ? hi : lo) ?? 0));
    case 'quantity':
      return pick(convertToSearchableQuantities(values).map((q) => q.value ?? 0));
    case 'token':
      return pick(convertToSearchableTokens(values).map((t) => (t.value ?? '').toLowerCase()));
    case 'reference':
      return pick(values.map((v) => String((v.value as { reference?: string } | undefined)?.reference ?? v.value)));
    default:
      return pick(values.map((v) => sortText(v)).filter((s) => s !== ''));
  }
}

function sortText({ type, value }: TypedValue): string {
  if (type === 'HumanName' && value && typeof value === 'object') {
    const name = value as { family?: string; given?: string[]; text?: string };
    return [name.family, ...(name.given ?? [])].filter(Boolean).join(' ').toLowerCase() || (name.text ?? '');
  }
  return (typeof value === 'string' ? value : typedValueToString({ type, value })).toLowerCase();
}

/**
 * _include / _revinclude for the resources on the current page. Each resource appears once (a
 * match is never repeated as an include); `:iterate` specs also apply to included resources.
 */
function collectIncludes(ctx: SearchContext, search: ParsedSearch, page: readonly StoredResource[]): StoredResource[] {
  if (search.include.length === 0 && search.revinclude.length === 0) {
    return [];
  }
  const key = (r: Resource & { id: string }) => `${r.resourceType}/${r.id}`;
  const seen = new Set(page.map(key));
  const included: StoredResource[] = [];
  let frontier: readonly StoredResource[] = page;
  for (let round = 0; frontier.length > 0 && round < MAX_INCLUDE_ROUNDS; round++) {
    const found: StoredResource[] = [];
    const add = (r: StoredResource | undefined) => {
      if (r && !seen.has(key(r))) {
        seen.add(key(r));
        found.push(r);
      }
    };
    const applies = (spec: IncludeSpec) => round === 0 || spec.iterate;
    for (const spec of search.include.filter(applies)) {
      for (const source of frontier.filter((r) => r.resourceType === spec.sourceType)) {
        for (const reference of referencesOf(source, spec.code)) {
          add(resolveReference(ctx, reference, spec.targetType));
        }
      }
    }
    for (const spec of search.revinclude.filter(applies)) {
      const targets = frontier.filter((r) => !spec.targetType || r.resourceType === spec.targetType).map(key);
      for (const id of [...ctx.store.findReferencing(spec.sourceType, spec.code, targets)].sort(compareIds)) {
        add(ctx.store.getStored(spec.sourceType, id));
      }
    }
    included.push(...found);
    frontier = found;
  }
  return included;
}

/** A `Type/id` reference (or an absolute one on this server) to a stored resource, if present. */
function resolveReference(ctx: SearchContext, reference: string, targetType?: string): StoredResource | undefined {
  const local = reference.startsWith(`${ctx.baseUrl}/`) ? reference.slice(ctx.baseUrl.length + 1) : reference;
  const [type, id, ...rest] = local.split('/');
  if (!type || !id || rest.length > 0 || (targetType && type !== targetType)) {
    return undefined;
  }
  return ctx.store.getStored(type, id);
}

function toEntry(ctx: SearchContext, search: ParsedSearch, r: StoredResource, mode: 'match' | 'include'): BundleEntry {
  return {
    fullUrl: `${ctx.baseUrl}/${r.resourceType}/${r.id}`,
    resource: subsetResource(r, search.summary, search.elements),
    search: { mode },
  };
}

/** self, plus first/previous/next as needed; all on this server's own base URL with _offset. */
function pageLinks(ctx: SearchContext, search: ParsedSearch, total: number): BundleLink[] {
  const url = (offset: number) => {
    const params = new URLSearchParams(search.linkParams.map(([k, v]) => [k, v]));
    if (search.summary !== 'count') {
      params.set('_count', String(search.count));
      params.set('_offset', String(offset));
    }
    return `${ctx.baseUrl}/${search.resourceType}?${params.toString()}`;
  };
  const links: BundleLink[] = [{ relation: 'self', url: url(search.offset) }];
  if (search.count === 0) {
    return links;
  }
  links.push({ relation: 'first', url: url(0) });
  if (search.offset > 0) {
    links.push({ relation: 'previous', url: url(Math.max(0, search.offset - search.count)) });
  }
  if (search.offset + search.count < total) {
    links.push({ relation: 'next', url: url(search.offset + search.count) });
  }
  return links;
}
