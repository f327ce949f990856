/**
 * `check-upstream`: every legacy operation of the route table, for one patient, sent to the real
 * service built in-process in front of the given FHIR server (src/assemble.ts), one at a time, with
 * what each took: the fallbacks its plan used (src/pipeline/plans/), the upstream round trips, the
 * time, or why it could not be served. Nothing here knows how an operation is fetched: the service
 * decides, exactly as it would in production (passthrough mode, the caller's token as the Bearer).
 */
import { assembleFacade } from '../../../assemble.ts';
import { silentAuditSink } from '../../../audit.ts';
import { parseConfig } from '../../../config.ts';
import type { Logger } from '../../../log.ts';
import type { FallbackKind } from '../../../pipeline/plans/search-plan.ts';
import type { ReadRoute, Route, SearchRoute } from '../../../route-types.ts';
import { ROUTES } from '../../../routes.ts';
import type { Transport } from '../../../upstream/transport.ts';
import { undiciTransport } from '../upstream/undici-transport.ts';
import { describeStatement, type StatementSummary } from './capability-summary.ts';
import { readRequest, recordIds, searchForRead, searchRequest, type LegacyRequest } from './operations.ts';

export interface CheckOptions {
  /** Base URL of the FHIR server, e.g. https://fhir.example.org/fhir */
  url: string;
  patient: string;
  /** Sent upstream as the Bearer, as the service does in passthrough mode. */
  token: string;
  /** Service settings (`UPSTREAM_PAGE_SIZE`, `UPSTREAM_TIMEOUT_MS`, …) the check runs with. */
  settings?: Readonly<Record<string, string>>;
  /** The transport to the FHIR server (undici by default, as on Node). */
  transport?: Transport;
  routes?: readonly Route[];
}

/** `native`: no fallback; `fallback`: served with the fallbacks listed; `no-record`: a read with no id to read. */
export type Outcome = 'native' | 'fallback' | 'not-servable' | 'no-record';

export interface OperationRow {
  operation: string;
  /** Method and path as the route table writes it, e.g. `GET /api/CarePlan/:id`. */
  request: string;
  outcome: Outcome;
  /** The fallbacks used, e.g. `revinclude DocumentReference:encounter`, `param Goal:category filtered here`. */
  fallbacks: string[];
  /** Why it was not served, or why there was nothing to read. */
  reason: string | undefined;
  /** The legacy status answered; undefined when no request was sent. */
  status: number | undefined;
  /** HTTP requests sent to the FHIR server for it, retries included. */
  roundTrips: number;
  /** Of those, answers that were throttled (429, or 503 with a hint). */
  throttled: number;
  ms: number;
}

export interface CheckReport {
  upstream: string;
  patient: string;
  capabilityStatement: StatementSummary;
  rows: OperationRow[];
  /** Every operation served (natively or with a fallback; a read with no record is not a failure). */
  allServable: boolean;
}

/** Settings the check fixes: every request goes upstream, and each operation shows its own answer. */
const FIXED_SETTINGS = { CACHE_ENABLED: 'false', UPSTREAM_AUTH_MODE: 'passthrough', UPSTREAM_BREAKER_FAILURES: '10000', PORT: '0' } as const;

export async function checkUpstream(options: CheckOptions): Promise<CheckReport> {
  const config = parseConfig({ ...options.settings, ...FIXED_SETTINGS, UPSTREAM_URL: options.url });
  const owned = options.transport === undefined ? undiciTransport({ connections: config.UPSTREAM_MAX_IN_FLIGHT }) : undefined;
  const inner = options.transport ?? owned!;
  const current = { calls: 0, throttled: 0, fallbacks: [] as string[], failure: undefined as string | undefined };
  const transport: Transport = async (request) => {
    // The CapabilityStatement is read once for the whole service, not for an operation.
    if (request.partition !== 'metadata') current.calls += 1;
    const response = await inner(request);
    if (request.partition !== 'metadata' && (response.status === 429 || response.status === 503)) current.throttled += 1;
    return response;
  };
  // The kind of upstream failure behind an error answer (`http-500`, `connection-refused`, …): a fixed vocabulary.
  const logger: Logger = (_level, message, fields) => {
    if (message === 'request failed' && typeof fields?.cause === 'string') current.failure = fields.cause;
  };
  const onFallback = (kind: FallbackKind, value: string) => current.fallbacks.push(describeFallback(kind, value));
  const { app, tracing } = assembleFacade(config, { upstreamUrl: options.url, transport, logger, audit: silentAuditSink, shareCacheLoads: false, onFallback });

  const send = async (request: LegacyRequest) => {
    Object.assign(current, { calls: 0, throttled: 0, fallbacks: [], failure: undefined });
    const started = performance.now();
    const headers: Record<string, string> = { authorization: `Bearer ${options.token}` };
    if (request.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await app.fetch(new Request(`http://check-upstream.invalid${request.path}`, { method: request.method, headers, body: request.form }));
    const text = await response.text();
    const ms = Math.round(performance.now() - started);
    return {
      status: response.status,
      body: parseJson(text),
      ms,
      calls: current.calls,
      throttled: current.throttled,
      fallbacks: [...new Set(current.fallbacks)],
      failure: current.failure,
    };
  };

  /**
   * One record id of a type for the patient, asked of the upstream itself (the legacy payloads of
   * AllergyIntolerance and Immunization name none): the first page, throttling waited out a little
   * and counted in `lookupThrottled` (the read's row reports it).
   */
  let lookupThrottled = 0;
  const upstreamRecordId = async (type: string): Promise<string | undefined> => {
    const query = new URLSearchParams({ patient: options.patient, _count: '10' });
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      const response = await inner({
        url: `${options.url.replace(/\/+$/, '')}/${type}?${query}`,
        headers: { accept: 'application/fhir+json', authorization: `Bearer ${options.token}` },
        signal: AbortSignal.timeout(config.UPSTREAM_TIMEOUT_MS),
        maxBodyBytes: config.UPSTREAM_MAX_BODY_BYTES,
        deadline: Date.now() + config.UPSTREAM_TIMEOUT_MS,
        partition: type,
      }).catch(() => undefined);
      if (response?.status === 429 || response?.status === 503) {
        lookupThrottled += 1;
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
        continue;
      }
      const entries = response?.status === 200 ? (parseJson(response.body) as { entry?: unknown } | undefined)?.entry : undefined;
      // The first record of the type: servers put OperationOutcome entries (warnings) among them.
      const record = (Array.isArray(entries) ? entries : [])
        .map((entry) => (entry as { resource?: { resourceType?: unknown; id?: unknown } } | null)?.resource)
        .find((resource) => resource?.resourceType === type && typeof resource.id === 'string');
      return record?.id as string | undefined;
    }
    return undefined;
  };

  try {
    const capabilityStatement = await describeStatement(
      options.url,
      transport,
      config,
      (options.routes ?? ROUTES).map((route) => route.upstream.resourceType),
    );
    const searched = new Map<string, Awaited<ReturnType<typeof send>>>();
    const rows: OperationRow[] = [];
    for (const route of options.routes ?? ROUTES) {
      const request = `${route.method} ${route.path}`;
      if (route.kind === 'search') {
        const answer = await send(searchRequest(route, options.patient));
        searched.set(route.name, answer);
        rows.push(rowOf(route, request, answer));
        continue;
      }
      const search = searchForRead(route, options.routes ?? ROUTES);
      const found = search === undefined ? undefined : (searched.get(search.name) ?? (await send(searchRequest(search, options.patient))));
      lookupThrottled = 0;
      const id =
        found?.status !== 200
          ? undefined
          : // Kinds without an id in the legacy payload (`full_url` `/AllergyIntolerance/`): the upstream names one.
            route.shape.withoutId
            ? await upstreamRecordId(route.upstream.resourceType)
            : recordIds(found.body, route.upstream.resourceType)[0];
      if (id === undefined) {
        rows.push({
          operation: route.name,
          request,
          outcome: 'no-record',
          fallbacks: [],
          reason: noRecordReason(route, search, found?.status),
          status: undefined,
          roundTrips: 0,
          throttled: 0,
          ms: 0,
        });
        continue;
      }
      const answer = await send(readRequest(route, id));
      rows.push(rowOf(route, request, { ...answer, throttled: answer.throttled + lookupThrottled }));
    }
    return { upstream: options.url, patient: options.patient, capabilityStatement, rows, allServable: rows.every((row) => row.outcome !== 'not-servable') };
  } finally {
    // Spans of the check's requests go out before it ends (OTEL_EXPORTER_OTLP_ENDPOINT set), as the service's do when it stops.
    await tracing.shutdown();
    await owned?.close();
  }
}

function rowOf(
  route: Route,
  request: string,
  answer: { status: number; body: unknown; ms: number; calls: number; throttled: number; fallbacks: string[]; failure: string | undefined },
): OperationRow {
  const served = answer.status === 200;
  return {
    operation: route.name,
    request,
    outcome: !served ? 'not-servable' : answer.fallbacks.length > 0 ? 'fallback' : 'native',
    fallbacks: answer.fallbacks,
    reason: served ? undefined : errorReason(answer.status, answer.body, answer.failure),
    status: answer.status,
    roundTrips: answer.calls,
    throttled: answer.throttled,
    ms: answer.ms,
  };
}

/** A fallback as the table says it. */
export function describeFallback(kind: FallbackKind, value: string): string {
  switch (kind) {
    case 'include':
      return `include ${value}`;
    case 'revinclude':
      return `revinclude ${value}`;
    case 'includes-refused':
      return `includes refused (400) on ${value}, fetched apart`;
    case 'param-substituted':
      return `param ${value} sent in another form`;
    case 'param-filtered':
      return `param ${value} filtered here`;
  }
}

/** `502 transient/upstream-error: The upstream FHIR server failed (upstream: http-500)`, from the OperationOutcome answered. */
function errorReason(status: number, body: unknown, failure: string | undefined): string {
  const issue = typeof body === 'object' && body !== null ? (body as { issue?: unknown }).issue : undefined;
  const first = Array.isArray(issue) && typeof issue[0] === 'object' && issue[0] !== null ? (issue[0] as Record<string, unknown>) : {};
  const codes = [first.code, (first.details as { text?: unknown } | undefined)?.text].filter((part): part is string => typeof part === 'string');
  const diagnostics = typeof first.diagnostics === 'string' ? `: ${first.diagnostics}` : '';
  return `${status}${codes.length > 0 ? ` ${codes.join('/')}` : ''}${diagnostics}${failure === undefined ? '' : ` (upstream: ${failure})`}`;
}

function noRecordReason(read: ReadRoute, search: SearchRoute | undefined, status: number | undefined): string {
  if (search === undefined) return `no record to read: no search of ${read.upstream.resourceType} finds one`;
  if (status !== 200) return `no record to read: ${search.name} answered ${status ?? 'nothing'}`;
  return `no record to read: ${search.name} found none for this patient`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
