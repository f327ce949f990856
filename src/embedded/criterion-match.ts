// Matching one search criterion against a resource, per FHIR R4 search semantics.
//
// Medplum supplies FHIRPath evaluation and the conversion of element values into searchable
// tokens/dates/strings; the comparison itself is done here because Medplum's matcher re-parses
// the expression for every resource, treats every string search as "contains", matches a token
// code against Coding.display, and returns false for number and quantity parameters.
import type { Period, Resource } from '@medplum/fhirtypes';
import type { TypedValue } from '@medplum/core';
import {
  OperationOutcomeError,
  badRequest,
  convertToSearchableDates,
  convertToSearchableNumbers,
  convertToSearchableQuantities,
  convertToSearchableTokens,
  convertToSearchableUris,
  evalFhirPathTyped,
  toPeriod,
  toTypedValue,
  typedValueToString,
} from '@medplum/core';
import { getParsedExpression } from './definitions.ts';
import type { SearchCriterion } from './search-request.ts';

export type ResourcePredicate = (resource: Resource) => boolean;

/** Marks tokens built from display text, so a plain code search never matches display text. */
const TEXT_SYSTEM = 'urn:embedded-fhir:text';

/** Evaluates a search parameter's expression on a resource. */
export function paramValues(resource: Resource, criterion: Pick<SearchCriterion, 'param'>): TypedValue[] {
  const atom = getParsedExpression(criterion.param);
  return atom ? evalFhirPathTyped(atom, [toTypedValue(resource)]) : [];
}

/**
 * Compiles a criterion into a predicate. Values are parsed here, once, so a malformed value is a
 * 400 before any resource is looked at. Reference criteria are normally answered from the
 * reference index instead (see search-executor); `referenceTargets` gives their match set.
 */
export function compileCriterion(criterion: SearchCriterion, referenceTargets?: ReadonlySet<string>): ResourcePredicate {
  if (criterion.modifier === 'missing') {
    const wantMissing = criterion.values[0] === 'true';
    return (r) => (paramValues(r, criterion).length === 0) === wantMissing;
  }
  const test = compileValueTest(criterion, referenceTargets);
  return (r) => test(paramValues(r, criterion));
}

function compileValueTest(c: SearchCriterion, referenceTargets?: ReadonlySet<string>): (v: TypedValue[]) => boolean {
  switch (c.param.type) {
    case 'token':
      return tokenTest(c);
    case 'string':
      return stringTest(c);
    case 'date':
      return dateTest(c);
    case 'uri': {
      const wanted = new Set(c.values);
      return (values) => convertToSearchableUris(values).some((u) => wanted.has(u));
    }
    case 'number': {
      const tests = c.values.map(parseNumberTest);
      return (values) => convertToSearchableNumbers(values).some(([lo, hi]) => tests.some((t) => t(lo ?? -Infinity, hi ?? Infinity)));
    }
    case 'quantity':
      return quantityTest(c);
    case 'reference':
      return referenceTest(c, referenceTargets ?? new Set());
    default:
      throw invalid(`Search parameter ${c.code} has an unsupported type`);
  }
}

function tokenTest(c: SearchCriterion): (values: TypedValue[]) => boolean {
  const tokensOf = (values: TypedValue[]) => convertToSearchableTokens(values, { textSearchSystem: TEXT_SYSTEM });
  if (c.modifier === 'text') {
    const needles = c.values.map(fold);
    return (values) => tokensOf(values).some((t) => t.system === TEXT_SYSTEM && needles.some((n) => fold(t.value ?? '').includes(n)));
  }
  const wanted = c.values.map(parseTokenValue);
  const anyMatch = (values: TypedValue[]) => tokensOf(values).some((t) => t.system !== TEXT_SYSTEM && wanted.some((w) => w(t.system, t.value)));
  // :not matches resources with no matching token, including those without the element
  return c.modifier === 'not' ? (values) => !anyMatch(values) : anyMatch;
}

/** `code`, `system|code`, `|code` (no system) and `system|` (any code); case-insensitive. */
function parseTokenValue(value: string): (system: string | undefined, code: string | undefined) => boolean {
  const bar = value.indexOf('|');
  const lower = (s: string | undefined) => s?.toLowerCase();
  if (bar < 0) {
    const code = value.toLowerCase();
    return (_system, actual) => lower(actual) === code;
  }
  const system = value.slice(0, bar).toLowerCase();
  const code = value.slice(bar + 1).toLowerCase();
  if (!system) {
    return (actualSystem, actual) => !actualSystem && lower(actual) === code;
  }
  return (actualSystem, actual) => lower(actualSystem) === system && (!code || lower(actual) === code);
}

function stringTest(c: SearchCriterion): (values: TypedValue[]) => boolean {
  if (c.modifier === 'exact') {
    return (values) => searchableStrings(values).some((s) => c.values.includes(s));
  }
  const needles = c.values.map(fold);
  const contains = c.modifier === 'contains';
  // Default string search is "starts with", case- and accent-insensitive, on each name/address part
  return (values) =>
    searchableStrings(values).some((s) => {
      const hay = fold(s);
      return needles.some((n) => (contains ? hay.includes(n) : hay.startsWith(n)));
    });
}

/** The strings a string parameter compares: each part of a HumanName or Address separately. */
function searchableStrings(values: TypedValue[]): string[] {
  const result: string[] = [];
  for (const { type, value } of values) {
    if (typeof value === 'string') {
      result.push(value);
    } else if (type === 'HumanName') {
      result.push(...strings(value.text, value.family, value.given, value.prefix, value.suffix));
    } else if (type === 'Address') {
      result.push(...strings(value.text, value.line, value.city, value.district, value.state, value.postalCode, value.country));
    } else {
      const text = typedValueToString({ type, value });
      if (text) {
        result.push(text);
      }
    }
  }
  return result;
}

function strings(...parts: unknown[]): string[] {
  return parts.flat().filter((p): p is string => typeof p === 'string' && p !== '');
}

/** Lower case without accents, for "case- and accent-insensitive" comparisons. */
function fold(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

const PREFIX = /^(eq|ne|gt|lt|ge|le|sa|eb|ap)(?=[-+.\d])/;

function splitPrefix(value: string): { prefix: string; rest: string } {
  const match = PREFIX.exec(value);
  return match?.[1] ? { prefix: match[1], rest: value.slice(2) } : { prefix: 'eq', rest: value };
}

function dateTest(c: SearchCriterion): (values: TypedValue[]) => boolean {
  const tests = c.values.map((v) => {
    const { prefix, rest } = splitPrefix(v);
    const period = toPeriod(rest);
    if (!period?.start || !period.end) {
      throw invalid(`Invalid date for search parameter ${c.code}: ${v}`);
    }
    return { prefix, start: period.start, end: period.end };
  });
  return (values) => {
    const periods = convertToSearchableDates(values);
    return tests.some((t) => (t.prefix === 'ne' ? !periods.some((p) => overlaps(p, t)) : periods.some((p) => dateMatches(p, t))));
  };
}

function overlaps(p: Period, t: { start: string; end: string }): boolean {
  return (p.start ?? '0000') <= t.end && (p.end ?? '9999') >= t.start;
}

/** Compares the resource's period with the search value's implicit range (a day, a month...). */
function dateMatches(p: Period, t: { prefix: string; start: string; end: string }): boolean {
  const start = p.start ?? '0000';
  const end = p.end ?? '9999';
  switch (t.prefix) {
    case 'gt':
      return end > t.end;
    case 'lt':
      return start < t.start;
    case 'ge':
      return end >= t.start;
    case 'le':
      return start <= t.end;
    case 'sa':
      return start > t.end;
    case 'eb':
      return end < t.start;
    default: // eq, ap
      return overlaps(p, t);
  }
}

/** A number with a prefix; `eq` honours the value's implicit precision (5.4 means [5.35, 5.45)). */
function parseNumberTest(value: string): (lo: number, hi: number) => boolean {
  const { prefix, rest } = splitPrefix(value);
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(rest)) {
    throw invalid(`Invalid number in search: ${value}`);
  }
  const n = Number(rest);
  const decimals = /\.(\d+)/.exec(rest.replace(/[eE].*/, ''))?.[1]?.length ?? 0;
  const half = 0.5 * 10 ** -decimals;
  const approx = Math.abs(n) * 0.1;
  switch (prefix) {
    case 'gt':
    case 'sa':
      return (_lo, hi) => hi > n;
    case 'lt':
    case 'eb':
      return (lo) => lo < n;
    case 'ge':
      return (_lo, hi) => hi >= n;
    case 'le':
      return (lo) => lo <= n;
    case 'ne':
      return (lo, hi) => !(lo >= n - half && hi < n + half);
    case 'ap':
      return (lo, hi) => lo <= n + approx && hi >= n - approx;
    default:
      return (lo, hi) => lo >= n - half && hi < n + half;
  }
}

/** `[prefix]number[|system|code]`; without a system the code may match Quantity.unit too. */
function quantityTest(c: SearchCriterion): (values: TypedValue[]) => boolean {
  const tests = c.values.map((v) => {
    const [number = '', system = '', code = '', ...extra] = v.split('|');
    if (extra.length > 0) {
      throw invalid(`Invalid quantity in search: ${v}`);
    }
    return { compare: parseNumberTest(number), system, code };
  });
  return (values) =>
    convertToSearchableQuantities(values).some((q) =>
      tests.some(
        (t) =>
          typeof q.value === 'number' &&
          t.compare(q.value, q.value) &&
          (!t.system || q.system === t.system) &&
          (!t.code || q.code === t.code || (!t.system && q.unit === t.code)),
      ),
    );
}

function referenceTest(c: SearchCriterion, targets: ReadonlySet<string>): (values: TypedValue[]) => boolean {
  if (c.modifier === 'identifier') {
    const wanted = c.values.map(parseTokenValue);
    return (values) =>
      values.some(({ value }) => {
        const id = (value as { identifier?: { system?: string; value?: string } } | undefined)?.identifier;
        return !!id && wanted.some((w) => w(id.system, id.value));
      });
  }
  return (values) =>
    values.some(({ value }) => {
      const ref = typeof value === 'string' ? value : (value as { reference?: unknown } | undefined)?.reference;
      return typeof ref === 'string' && targets.has(ref.replace(/\/_history\/.*$/, ''));
    });
}

function invalid(message: string): OperationOutcomeError {
  return new OperationOutcomeError(badRequest(message));
}
