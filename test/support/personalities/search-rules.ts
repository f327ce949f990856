/**
 * What a personality does to the parameters of a search before the embedded server sees them:
 * unknown parameters refused or dropped, unsupported includes dropped or refused, `_count`
 * lowered, bare ids on reference parameters other than `patient`/`subject` made to match nothing.
 * Each rule is one documented behaviour of ../shared/UPSTREAMS.md.
 */
import type { Personality, ProxyStats } from './personality.ts';
import { issue, outcomeAnswer, type ProxyAnswer } from './proxy-answer.ts';

/** Parameters that shape a result rather than filter it (as the embedded server accepts them). */
export const RESULT_PARAMS: ReadonlySet<string> = new Set([
  '_count',
  '_offset',
  '_include',
  '_revinclude',
  '_sort',
  '_elements',
  '_summary',
  '_total',
  '_format',
  '_pretty',
  '_id',
  '_lastUpdated',
]);

/** The search parameters the server has, per type: name → FHIR search parameter type. */
export type SearchParamTypes = ReadonlyMap<string, ReadonlyMap<string, string>>;

export interface SearchRequest {
  resourceType: string;
  /** Decoded name/value pairs, query and form body together, in request order. */
  params: [string, string][];
  /** The request's `Prefer` header. */
  prefer: string | undefined;
}

export interface RuledSearch {
  /** What goes to the embedded server. */
  params: [string, string][];
  /** Issues the server reports in its outcome entry (a dropped parameter). */
  issues: object[];
}

/** A name the personality says its server lacks (its CapabilityStatement leaves it out too). */
export function isMissingParam(personality: Personality, resourceType: string, name: string): boolean {
  return personality.unknownParams?.missing[resourceType]?.includes(name) === true;
}

export function applySearchRules(personality: Personality, request: SearchRequest, types: SearchParamTypes, stats: ProxyStats): RuledSearch | ProxyAnswer {
  const known = types.get(request.resourceType) ?? new Map<string, string>();
  const issues: object[] = [];
  let params = request.params;

  if (personality.unknownParams) {
    const strict = personality.unknownParams.handling === 'strict' || /handling\s*=\s*strict/i.test(request.prefer ?? '');
    const kept: [string, string][] = [];
    for (const [name, value] of params) {
      const base = name.split(':')[0]!;
      const has = RESULT_PARAMS.has(base) || (known.has(base) && !isMissingParam(personality, request.resourceType, base));
      if (has) {
        kept.push([name, value]);
      } else if (strict) {
        stats.unknownParamsRefused += 1;
        // HAPI's wording (HAPI-0524); Medplum's "Unknown search parameter: x" says the same.
        return outcomeAnswer(400, 'invalid', `HAPI-0524: Unknown search parameter "${base}" for resource type "${request.resourceType}"`);
      } else {
        stats.unknownParamsDropped += 1;
        issues.push(issue('warning', 'not-supported', `The search parameter '${base}' is not supported for resource type '${request.resourceType}'.`));
      }
    }
    params = kept;
    const missing = personality.unknownParams.missing[request.resourceType] ?? [];
    if (missing.length > 0 && !request.params.some(([name]) => missing.includes(name.split(':')[0]!))) stats.searchesWithoutMissingParams += 1;
  }

  const includes = personality.includes;
  if (includes) {
    const kept: [string, string][] = [];
    for (const [name, value] of params) {
      const isInclude = name === '_include' || name === '_revinclude';
      if (!isInclude || includes.allowed.includes(`${name.slice(1)}:${value}`)) {
        kept.push([name, value]);
      } else if (includes.otherwise === 'reject') {
        stats.includesRefused += 1;
        return outcomeAnswer(400, 'not-supported', `${name}=${value} is not supported`);
      } else {
        stats.includesDropped += 1;
      }
    }
    params = kept;
  }

  if (personality.pageCap !== undefined) {
    const cap = personality.pageCap;
    params = params.map(([name, value]): [string, string] => {
      if (name !== '_count' || !(Number(value) > cap)) return [name, value];
      stats.countsLowered += 1;
      return [name, String(cap)];
    });
  }

  if (personality.typedReferencesOnly) {
    params = params.map(([name, value]): [string, string] => {
      const [base, modifier] = name.split(':');
      if (known.get(base!) !== 'reference' || modifier !== undefined || base === 'patient' || base === 'subject') return [name, value];
      const values = value.split(',').map((one) => {
        if (one.includes('/') || one.includes(':')) return one;
        stats.bareReferencesUnmatched += 1;
        // Medplum prefixes bare ids on patient/subject only; elsewhere the id is compared with typed
        // references as it is and matches none (medplum/medplum#9254). A value that names no record:
        return `BareIdMatchesNothing/${one}`;
      });
      return [name, values.join(',')];
    });
  }

  return { params, issues };
}
