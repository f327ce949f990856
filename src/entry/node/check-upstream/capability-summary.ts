/**
 * What `check-upstream` says about the server's CapabilityStatement (`[base]/metadata`), read with
 * the service's own FHIR client: which server it is, and which of the resource types the route
 * table reads it does not list (the service then learns what it can do by asking).
 */
import type { Config } from '../../../config.ts';
import { upstreamSetupFor } from '../../../upstream/profiles.ts';
import { FhirClient } from '../../../upstream/fhir-client.ts';
import { isObject } from '../../../upstream/fhir-json.ts';
import type { Transport } from '../../../upstream/transport.ts';

export interface StatementSummary {
  found: boolean;
  /** `software.name` and `software.version`, when stated. */
  software: string | undefined;
  fhirVersion: string | undefined;
  /** Resource types of the server `rest` entry. */
  resourceTypes: number;
  /** Types the route table reads that the statement does not list (empty when there is no statement). */
  unlisted: string[];
}

export async function describeStatement(url: string, transport: Transport, config: Config, routeTypes: readonly string[]): Promise<StatementSummary> {
  const client = new FhirClient({
    baseUrl: url,
    transport,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    maxPages: config.UPSTREAM_MAX_PAGES,
    pageSize: upstreamSetupFor(config).pageSize,
    maxBodyBytes: config.UPSTREAM_MAX_BODY_BYTES,
  });
  const statement = await client.capabilityStatement();
  if (!isObject(statement) || statement.resourceType !== 'CapabilityStatement') {
    return { found: false, software: undefined, fhirVersion: undefined, resourceTypes: 0, unlisted: [] };
  }
  const software = isObject(statement.software)
    ? [statement.software.name, statement.software.version].filter((part) => typeof part === 'string').join(' ')
    : '';
  const rest = Array.isArray(statement.rest) ? statement.rest.find((entry) => isObject(entry) && entry.mode === 'server') : undefined;
  const listed = new Set(
    (isObject(rest) && Array.isArray(rest.resource) ? rest.resource : []).flatMap((resource) =>
      isObject(resource) && typeof resource.type === 'string' ? [resource.type] : [],
    ),
  );
  return {
    found: true,
    software: software === '' ? undefined : software,
    fhirVersion: typeof statement.fhirVersion === 'string' ? statement.fhirVersion : undefined,
    resourceTypes: listed.size,
    unlisted: [...new Set(routeTypes)].filter((type) => !listed.has(type)).sort(),
  };
}
