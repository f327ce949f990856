/**
 * The CapabilityStatement (`[base]/metadata`) each personality serves, telling the truth about
 * what it supports: the embedded server's own statement, less the search parameters the
 * personality lacks, with `searchInclude` / `searchRevInclude` per type (all the reference
 * parameters the embedded server resolves, or only the personality's allowed ones).
 */
import { ensureFhirDefinitions, listSearchParams } from '../../../src/embedded/definitions.ts';
import type { Personality } from './personality.ts';
import { isMissingParam, type SearchParamTypes } from './search-rules.ts';

interface ResourceCapability {
  type: string;
  searchParam?: { name: string; type: string }[];
  searchInclude?: string[];
  searchRevInclude?: string[];
  [member: string]: unknown;
}

export interface CapabilityStatementJson {
  resourceType: 'CapabilityStatement';
  rest: { mode: string; resource: ResourceCapability[] }[];
  [member: string]: unknown;
}

/** name → type of every search parameter the embedded server declares, per resource type. */
export function searchParamTypes(statement: CapabilityStatementJson): SearchParamTypes {
  const types = new Map<string, Map<string, string>>();
  for (const resource of statement.rest[0]?.resource ?? []) {
    types.set(resource.type, new Map((resource.searchParam ?? []).map((param) => [param.name, param.type])));
  }
  return types;
}

/** `Type:param` for every reference parameter of each type, and which of them point at each type. */
function referenceParams(types: readonly string[]): { includes: Map<string, string[]>; revincludes: Map<string, string[]> } {
  ensureFhirDefinitions();
  const includes = new Map<string, string[]>();
  const revincludes = new Map<string, string[]>(types.map((type) => [type, []]));
  for (const source of types) {
    const own: string[] = [];
    for (const param of listSearchParams(source)) {
      if (param.type !== 'reference' || param.code === undefined) continue;
      own.push(`${source}:${param.code}`);
      for (const target of param.target ?? []) revincludes.get(target)?.push(`${source}:${param.code}`);
    }
    includes.set(source, own.sort());
  }
  for (const list of revincludes.values()) list.sort();
  return { includes, revincludes };
}

export function personalityCapabilityStatement(embedded: CapabilityStatementJson, personality: Personality, advertisedBase: string): CapabilityStatementJson {
  const resources = embedded.rest[0]?.resource ?? [];
  const { includes, revincludes } = referenceParams(resources.map((resource) => resource.type));
  const allowed = personality.includes?.allowed;
  const allowedOf = (kind: 'include' | 'revinclude', type: string | undefined) =>
    (allowed ?? [])
      .filter((value) => value.startsWith(`${kind}:`) && (type === undefined || value.startsWith(`${kind}:${type}:`)))
      .map((value) => value.slice(kind.length + 1));
  return {
    ...embedded,
    software: { name: `${personality.name} (a personality proxy over the embedded FHIR server)` },
    implementation: { description: personality.reproduces, url: advertisedBase },
    rest: [
      {
        mode: 'server',
        resource: resources.map((resource) => ({
          ...resource,
          searchParam: (resource.searchParam ?? []).filter((param) => !isMissingParam(personality, resource.type, param.name)),
          // An allowed include is declared on its own type; an allowed revinclude on every type it can point at.
          ...(personality.includes?.declared === false
            ? {}
            : {
                searchInclude: allowed ? allowedOf('include', resource.type) : (includes.get(resource.type) ?? []),
                searchRevInclude: allowed ? allowedOf('revinclude', undefined) : (revincludes.get(resource.type) ?? []),
              }),
        })),
      },
    ],
  };
}
