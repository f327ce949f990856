/**
 * What the upstream FHIR server can do for a search, as far as the service knows: what its
 * CapabilityStatement declares (`searchInclude`, `searchRevInclude`, `searchParam` per resource
 * type), what the site and the named profile state beyond it (src/upstream/profiles.ts), and what
 * was observed since (an include the server was asked for and did not carry out). Generic FHIR: no
 * legacy operation or server is named here; src/pipeline/plans/ decides what to do with it.
 *
 * Precedence, strongest first: observed; the site's configuration; the statement; the profile.
 */
import { isObject } from '../fhir/primitives.ts';

/** `yes`: declared or seen to work; `no`: declared absent or seen to fail; `unknown`: neither. */
export type Support = 'yes' | 'no' | 'unknown';

/** The `_include` / `_revinclude` values each resource type declares; absent lists are "not stated". */
interface DeclaredSearch {
  includes: ReadonlySet<string> | undefined;
  revincludes: ReadonlySet<string> | undefined;
  /** `searchParam[].name`; parameters that apply to every type (`_id`, `_count`, …) are not listed there. */
  params: ReadonlySet<string> | undefined;
}

/**
 * Limits stated outside the CapabilityStatement, as lists of what the server does not do:
 * `_include` / `_revinclude` values (`*` for all, `!value` for an exception to `*`) and search
 * parameters as `Type:param`. An exception only takes the value out of the list: whether the server
 * carries it out is then for the statement and observation to say.
 */
export interface StatedLimits {
  readonly unsupportedIncludes?: readonly string[];
  readonly unsupportedRevincludes?: readonly string[];
  readonly unsupportedParams?: readonly string[];
}

/** The site's limits (above the statement) and the profile's (below it). */
export interface StatedLayers {
  readonly site?: StatedLimits;
  readonly profile?: StatedLimits;
}

/** Whether a stated list names a value as unsupported. */
function listed(list: readonly string[] | undefined, value: string): boolean {
  if (list === undefined) return false;
  return list.includes(value) || (list.includes('*') && !list.includes(`!${value}`));
}

const LIST_OF = { include: 'unsupportedIncludes', revinclude: 'unsupportedRevincludes' } as const;

export class UpstreamCapabilities {
  #declared: ReadonlyMap<string, DeclaredSearch>;
  readonly #stated: StatedLayers;
  /** Observations by `include|Type|value` / `revinclude|Type|value`; a new statement clears them. */
  readonly #observed = new Map<string, boolean>();

  constructor(declared: ReadonlyMap<string, DeclaredSearch> = new Map(), stated: StatedLayers = {}) {
    this.#declared = declared;
    this.#stated = stated;
  }

  /** Takes what a (newer) CapabilityStatement declares, and starts observing afresh. */
  declare(statement: unknown): void {
    this.#declared = declaredSearches(statement);
    // A new statement (every 10 minutes) starts the observations afresh: a server's deployments
    // change what it carries out, and one caller's refusal must not stand for ever.
    this.#observed.clear();
  }

  /** Whether a search of `type` carries out `_include=value`. */
  include(type: string, value: string): Support {
    return this.#support('include', type, value, this.#declared.get(type)?.includes);
  }

  /** Whether a search of `type` carries out `_revinclude=value`. */
  revinclude(type: string, value: string): Support {
    return this.#support('revinclude', type, value, this.#declared.get(type)?.revincludes);
  }

  /** Whether a search of `type` takes the search parameter `name` (`_`-parameters are the server's own, always taken). */
  param(type: string, name: string): Support {
    if (name.startsWith('_')) return 'yes';
    const key = `${type}:${name}`;
    if (listed(this.#stated.site?.unsupportedParams, key)) return 'no';
    const declared = this.#declared.get(type)?.params;
    if (declared !== undefined && declared.size > 0) return declared.has(name) ? 'yes' : 'no';
    return listed(this.#stated.profile?.unsupportedParams, key) ? 'no' : 'unknown';
  }

  /** Records what a search showed: the server did (or did not) carry out this include. */
  observe(kind: 'include' | 'revinclude', type: string, value: string, works: boolean): void {
    this.#observed.set(`${kind}|${type}|${value}`, works);
  }

  #support(kind: 'include' | 'revinclude', type: string, value: string, declared: ReadonlySet<string> | undefined): Support {
    const observed = this.#observed.get(`${kind}|${type}|${value}`);
    if (observed !== undefined) return observed ? 'yes' : 'no';
    if (listed(this.#stated.site?.[LIST_OF[kind]], value)) return 'no';
    if (declared !== undefined) return declared.has(value) || declared.has('*') ? 'yes' : 'no';
    return listed(this.#stated.profile?.[LIST_OF[kind]], value) ? 'no' : 'unknown';
  }
}

/**
 * Reads a CapabilityStatement's server `rest` entry. Anything that is not one (an error body, a
 * server without `/metadata`) declares nothing: every include is then `unknown` and is observed.
 */
export function capabilitiesFrom(statement: unknown, stated: StatedLayers = {}): UpstreamCapabilities {
  return new UpstreamCapabilities(declaredSearches(statement), stated);
}

function declaredSearches(statement: unknown): Map<string, DeclaredSearch> {
  const declared = new Map<string, DeclaredSearch>();
  if (!isObject(statement) || statement.resourceType !== 'CapabilityStatement' || !Array.isArray(statement.rest)) return declared;
  const server = statement.rest.find((rest) => isObject(rest) && rest.mode === 'server');
  const resources = isObject(server) && Array.isArray(server.resource) ? server.resource : [];
  for (const resource of resources) {
    if (!isObject(resource) || typeof resource.type !== 'string') continue;
    const params = Array.isArray(resource.searchParam)
      ? new Set(resource.searchParam.flatMap((param) => (isObject(param) && typeof param.name === 'string' ? [param.name] : [])))
      : undefined;
    declared.set(resource.type, { includes: stringSet(resource.searchInclude), revincludes: stringSet(resource.searchRevInclude), params });
  }
  return declared;
}

function stringSet(value: unknown): ReadonlySet<string> | undefined {
  return Array.isArray(value) ? new Set(value.filter((item): item is string => typeof item === 'string')) : undefined;
}
