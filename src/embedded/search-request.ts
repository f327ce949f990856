// Turns the query of a FHIR search (GET query string or POST _search form body) into a checked
// search request. Anything the server cannot honour is a 400, never silently ignored: Medplum's
// own parser accepts unknown names and then matches nothing, which a client cannot tell from
// "no data".
import type { SearchParameter } from '@medplum/fhirtypes';
import { OperationOutcomeError, badRequest, splitSearchOnComma } from '@medplum/core';
import { getSearchParam } from './definitions.ts';

/** One `name[:modifier]=value` criterion; comma-separated values are ORed, criteria ANDed. */
export interface SearchCriterion {
  readonly param: SearchParameter;
  readonly code: string;
  /** Text after the colon in the name (`exact`, `not`, `missing`, or a type for references). */
  readonly modifier: string;
  readonly values: readonly string[];
}

export interface SortKey {
  readonly param: SearchParameter;
  readonly descending: boolean;
}

export interface IncludeSpec {
  /** The resource type that holds the reference (`Encounter` in `Encounter:patient`). */
  readonly sourceType: string;
  readonly param: SearchParameter;
  readonly code: string;
  readonly targetType: string | undefined;
  readonly iterate: boolean;
}

export interface ParsedSearch {
  readonly resourceType: string;
  readonly criteria: readonly SearchCriterion[];
  readonly sort: readonly SortKey[];
  readonly count: number;
  readonly offset: number;
  readonly include: readonly IncludeSpec[];
  readonly revinclude: readonly IncludeSpec[];
  readonly summary: 'true' | 'text' | 'data' | 'count' | 'false' | undefined;
  readonly elements: readonly string[] | undefined;
  /** The query without paging parameters, in request order, to build self/next links from. */
  readonly linkParams: readonly (readonly [string, string])[];
}

export interface PagingLimits {
  readonly defaultPageSize: number;
  readonly maxPageSize: number;
}

/** Result parameters this server accepts (they shape the result rather than filter it). */
const RESULT_PARAMS = new Set(['_count', '_offset', '_include', '_revinclude', '_sort', '_elements', '_summary', '_total', '_format', '_pretty']);

/** Search parameter types this server evaluates (composite and special are refused with 400). */
export const SUPPORTED_PARAM_TYPES: ReadonlySet<string> = new Set(['reference', 'token', 'date', 'string', 'uri', 'number', 'quantity']);

/** Modifiers understood per parameter type; `missing` works for all of them. */
const SUPPORTED_MODIFIERS: Record<string, readonly string[]> = {
  reference: ['identifier'],
  token: ['not', 'text'],
  string: ['exact', 'contains'],
  date: [],
  uri: [],
  number: [],
  quantity: [],
};

/**
 * Parses and checks a search. `lenient` (from `Prefer: handling=lenient`) drops unknown
 * parameters instead of rejecting them, as the FHIR spec allows.
 */
export function parseSearch(resourceType: string, query: readonly (readonly [string, string])[], limits: PagingLimits, lenient = false): ParsedSearch {
  const criteria: SearchCriterion[] = [];
  const sort: SortKey[] = [];
  const include: IncludeSpec[] = [];
  const revinclude: IncludeSpec[] = [];
  const linkParams: [string, string][] = [];
  let count = limits.defaultPageSize;
  let offset = 0;
  let summary: ParsedSearch['summary'];
  let elements: string[] | undefined;

  for (const [key, value] of query) {
    const colon = key.indexOf(':');
    const code = colon >= 0 ? key.slice(0, colon) : key;
    const modifier = colon >= 0 ? key.slice(colon + 1) : '';

    if (RESULT_PARAMS.has(code)) {
      if (code !== '_count' && code !== '_offset') {
        linkParams.push([key, value]);
      }
      switch (code) {
        case '_count':
          // Over-large pages are clamped rather than refused, as most servers do
          count = Math.min(parseNonNegativeInt(key, value), limits.maxPageSize);
          break;
        case '_offset':
          offset = parseNonNegativeInt(key, value);
          break;
        case '_sort':
          sort.push(...parseSort(resourceType, value));
          break;
        case '_include':
        case '_revinclude':
          (code === '_include' ? include : revinclude).push(parseInclude(code, modifier, value, resourceType));
          break;
        case '_summary':
          summary = parseSummary(value);
          break;
        case '_elements':
          elements = value
            .split(',')
            .map((e) => e.trim())
            .filter(Boolean);
          break;
        case '_format':
          checkFormat(value);
          break;
        // _total (always computed exactly) and _pretty need no action
      }
      continue;
    }

    const param = getSearchParam(resourceType, code);
    if (!param || key.includes('.') || code === '_has') {
      if (lenient) {
        continue;
      }
      throw invalid(
        param || code === '_has'
          ? `Chained and reverse-chained search parameters are not supported: ${key}`
          : `Unknown search parameter for ${resourceType}: ${code}`,
      );
    }
    linkParams.push([key, value]);
    criteria.push(parseCriterion(param, code, modifier, value));
  }

  if (summary === 'count') {
    count = 0;
  }
  return { resourceType, criteria, sort, count, offset, include, revinclude, summary, elements, linkParams };
}

function parseCriterion(param: SearchParameter, code: string, modifier: string, value: string): SearchCriterion {
  const type = param.type ?? '';
  if (!SUPPORTED_PARAM_TYPES.has(type)) {
    throw invalid(`Search parameter ${code} has type ${type}, which this server does not support`);
  }
  if (modifier === 'missing') {
    if (value !== 'true' && value !== 'false') {
      throw invalid(`${code}:missing takes true or false`);
    }
  } else if (modifier && !SUPPORTED_MODIFIERS[type]?.includes(modifier)) {
    // A reference parameter's modifier may name the target type: subject:Patient=12
    const isTargetType = type === 'reference' && (param.target ?? []).includes(modifier as never);
    if (!isTargetType) {
      throw invalid(`Unsupported modifier :${modifier} on search parameter ${code}`);
    }
  }
  const values = splitSearchOnComma(value).filter((v) => v !== '');
  if (values.length === 0) {
    throw invalid(`Search parameter ${code} has no value`);
  }
  return { param, code, modifier, values };
}

function parseSort(resourceType: string, value: string): SortKey[] {
  return value
    .split(',')
    .filter(Boolean)
    .map((field) => {
      const descending = field.startsWith('-');
      const code = descending ? field.slice(1) : field;
      const param = getSearchParam(resourceType, code);
      if (!param || !SUPPORTED_PARAM_TYPES.has(param.type ?? '')) {
        throw invalid(`Cannot sort ${resourceType} by ${code}`);
      }
      return { param, descending };
    });
}

function parseInclude(name: string, modifier: string, value: string, resourceType: string): IncludeSpec {
  if (modifier && modifier !== 'iterate' && modifier !== 'recurse') {
    throw invalid(`Unsupported modifier ${name}:${modifier}`);
  }
  const [sourceType, code, targetType, ...rest] = value.split(':');
  if (!sourceType || !code || rest.length > 0) {
    throw invalid(`${name} must be <ResourceType>:<search parameter>[:<target type>], got ${value}`);
  }
  const param = getSearchParam(sourceType, code);
  if (param?.type !== 'reference') {
    throw invalid(`${name}=${value}: ${sourceType} has no reference search parameter ${code}`);
  }
  if (name === '_include' && modifier === '' && sourceType !== resourceType) {
    throw invalid(`_include=${value} does not apply to ${resourceType} (use _include:iterate)`);
  }
  return { sourceType, param, code, targetType: targetType || undefined, iterate: modifier !== '' };
}

function parseSummary(value: string): ParsedSearch['summary'] {
  if (value === 'true' || value === 'text' || value === 'data' || value === 'count' || value === 'false') {
    return value;
  }
  throw invalid(`Invalid _summary value: ${value}`);
}

function checkFormat(value: string): void {
  if (!/json/i.test(value)) {
    throw invalid(`This server only produces JSON; _format=${value} is not supported`);
  }
}

function parseNonNegativeInt(name: string, value: string): number {
  if (!/^\d+$/.test(value)) {
    throw invalid(`${name} must be a non-negative integer, got ${value}`);
  }
  return Number.parseInt(value, 10);
}

function invalid(message: string): OperationOutcomeError {
  return new OperationOutcomeError(badRequest(message));
}
