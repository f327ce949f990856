/**
 * Who may read what: the one place access is enforced, for every route (docs/security.md).
 *
 * - `passthrough`: the caller's token goes upstream as the bearer and the upstream judges it;
 *   nothing is narrowed or filtered here.
 * - `service`: the upstream sees only the service's own credential, so this module stands between
 *   one patient's token and every other patient's records. It validates the caller's token, checks
 *   its SMART scopes against the route's resource type, pins every search to the token's patient,
 *   and filters every record of an answer — matches and included records alike — before mapping.
 *
 * Nothing here names an endpoint: the route table's resource type and patient element say it all.
 */
import { normalizeReference, patientOf, type FhirResource } from '../fhir/primitives.ts';
import type { Caller, CallerValidator } from './caller-validation.ts';
import type { ServiceCredential } from './service-credential.ts';
import { FacadeError } from '../errors.ts';
import type { Route } from '../route-types.ts';
import type { PreparedRequest } from '../pipeline/legacy-operation.ts';
import { patientScopeOf } from '../pipeline/plans/type-strategies.ts';

/** The records of one answer: the route's matches and the records included with them. */
export interface AnswerRecords {
  matches: FhirResource[];
  included: FhirResource[];
}

/** What the pipeline needs to know about the caller of one admitted request. */
export interface RequestAccess {
  /** The validated caller; undefined in passthrough mode (the upstream judges the token). */
  caller: Caller | undefined;
  /** The records of an answer this caller may see; the rest is dropped before mapping. */
  visible(route: Route, records: AnswerRecords): AnswerRecords;
}

/** Sends one upstream call with the bearer the mode says: the caller's, or the service's own. */
export type UpstreamCaller = <T>(callerToken: string | undefined, call: (bearer: string | undefined) => Promise<T>) => Promise<T>;

export interface AccessControl {
  readonly mode: 'passthrough' | 'service';
  /**
   * Validates the caller and narrows the request to what it may read (401, 403). Runs before the
   * cache. `identified` is told the caller as soon as the token is good, so a refusal is audited with its subject.
   * Passthrough admits at once (no promise), so a cache hit needs no turn of the event loop.
   */
  admit(prepared: PreparedRequest, identified?: (caller: Caller) => void): PreparedRequest | Promise<PreparedRequest>;
  upstream: UpstreamCaller;
}

/** Passthrough: every record the upstream answers is the caller's to see (the upstream decided). */
export const UNRESTRICTED: RequestAccess = { caller: undefined, visible: (_, records) => records };

export const passthroughAccess: AccessControl = {
  mode: 'passthrough',
  admit: (prepared) => prepared,
  upstream: (callerToken, call) => call(callerToken),
};

/** Types whose records belong to no patient (directory data): they follow the scopes only. */
const NON_PATIENT_TYPES = new Set(['Practitioner', 'PractitionerRole', 'Organization', 'Location']);

/** Whose patient a record is: one FHIR fact, in src/fhir/primitives.ts (passed on for the pipeline). */
export { patientOf };

export interface ServiceAccessOptions {
  validateCaller: CallerValidator;
  credential: ServiceCredential;
}

export function serviceAccess(options: ServiceAccessOptions): AccessControl {
  return {
    mode: 'service',
    async admit(prepared, identified) {
      const { route, token } = prepared;
      // The route's policy already answered 401/403 where the spec says so; with the service's own
      // credential upstream, a request without a token can be granted nothing at all.
      if (token === undefined) throw new FacadeError('unauthorized');
      const caller = await options.validateCaller(token);
      identified?.(caller);
      const type = route.upstream.resourceType;
      if (!caller.scopes.allows(type, route.kind === 'read' ? 'read' : 'search')) {
        throw new FacadeError('scope-denied', `the token's scopes do not grant ${route.kind === 'read' ? 'reading' : 'searching'} ${type}`);
      }
      const asked = prepared.params.patient;
      if (asked !== undefined && asked !== caller.patient) throw new FacadeError('patient-denied');
      let params = prepared.params;
      if (!NON_PATIENT_TYPES.has(type)) {
        if (caller.patient === undefined) throw new FacadeError('patient-denied', 'the token names no patient');
        // Every search is pinned to the token's patient; a by-id read of another patient's record is then a 404.
        if (route.params.includes('patient')) params = { ...params, patient: caller.patient };
      }
      // A search through a patient scope reads that type's records first (Practitioners through the
      // patient's Encounters): its answer tells about them, so the token must grant searching them too.
      const through = patientScopeOf(type);
      if (route.kind === 'search' && through !== undefined && params.patient !== undefined && !caller.scopes.allows(through.resourceType, 'search')) {
        throw new FacadeError('scope-denied', `the token's scopes do not grant searching ${through.resourceType}, which this search reads`);
      }
      return { ...prepared, params, access: { caller, visible: (_answerRoute, records) => visibleRecords(caller, records) } };
    },
    async upstream(_callerToken, call) {
      // The caller's token is never forwarded in this mode.
      const bearer = await options.credential.bearer();
      try {
        return await call(bearer);
      } catch (error) {
        // The upstream refusing the service's credential is the service's failure, not the caller's.
        if (error instanceof FacadeError && (error.code === 'upstream-refused-token' || error.code === 'upstream-denied')) {
          options.credential.forget();
          throw new FacadeError('upstream-credential-failed', 'the upstream refused the service credential', { cause: error, reason: error.reason });
        }
        throw error;
      }
    },
  };
}

/**
 * The records a caller may see: a type its scopes grant, and the caller's own patient's record
 * (directory types: the scopes only). A Provenance is kept only when every record it is about is
 * kept or is the caller's Patient, and nothing else in it names another patient or their records
 * (an agent, on whose behalf, an entity): see {@link namesOnlyKnown}.
 */
function visibleRecords(caller: Caller, records: AnswerRecords): AnswerRecords {
  const ownRecord = (resource: FhirResource): boolean => {
    if (!caller.scopes.allowsAny(resource.resourceType) || resource.resourceType === 'Provenance') return false;
    if (NON_PATIENT_TYPES.has(resource.resourceType)) return true;
    return caller.patient !== undefined && patientOf(resource) === caller.patient;
  };
  const matches = records.matches.filter((resource) => ownRecord(resource));
  const included = records.included.filter((resource) => ownRecord(resource));
  const kept = new Set([...matches, ...included].map((resource) => `${resource.resourceType}/${resource.id}`));
  if (caller.patient !== undefined) kept.add(`Patient/${caller.patient}`);
  const provenances = [...records.matches, ...records.included].filter(
    (resource) =>
      resource.resourceType === 'Provenance' && caller.scopes.allowsAny('Provenance') && targetsAllKept(resource, kept) && namesOnlyKnown(resource, kept),
  );
  return {
    matches: [...matches, ...provenances.filter((resource) => records.matches.includes(resource))],
    included: [...included, ...provenances.filter((resource) => records.included.includes(resource))],
  };
}

function targetsAllKept(provenance: FhirResource, kept: Set<string>): boolean {
  const targets = Array.isArray(provenance.target) ? provenance.target : [];
  if (targets.length === 0) return false;
  return targets.every((target) => {
    const reference = normalizeReference(typeof target === 'object' && target !== null ? (target as { reference?: unknown }).reference : undefined);
    return reference !== undefined && kept.has(reference);
  });
}

/**
 * Whether every reference anywhere in a Provenance (agents, on whose behalf, entities, extensions)
 * is to a record kept in the answer, the caller's Patient, or a directory record. A Provenance is
 * chosen by its targets, but it may name whoever else took part: another patient, their
 * RelatedPerson, their record as a source. A reference whose record cannot be told (a logical
 * reference by identifier, a contained record, anything not `Type/id`) counts as another's.
 */
function namesOnlyKnown(provenance: FhirResource, kept: Set<string>): boolean {
  if (Array.isArray(provenance.contained) && provenance.contained.length > 0) return false;
  const known = (value: unknown): boolean => {
    if (Array.isArray(value)) return value.every(known);
    if (typeof value !== 'object' || value === null) return true;
    const element = value as Record<string, unknown>;
    if ('reference' in element) {
      const reference = normalizeReference(element.reference);
      if (reference === undefined) return false;
      if (!kept.has(reference) && !NON_PATIENT_TYPES.has(reference.slice(0, reference.indexOf('/')))) return false;
    } else if (typeof element.identifier === 'object' && element.identifier !== null && !Array.isArray(element.identifier)) {
      return false; // a Reference by identifier alone: whose it is cannot be told
    }
    return Object.values(element).every(known);
  };
  return known(provenance);
}
