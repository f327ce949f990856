/**
 * The upstream FHIR R4 client: reads by id and exhausts searches by following `next` links.
 * It knows FHIR, not the legacy interface: endpoint-specific logic belongs in the route table.
 */
import { FacadeError } from '../errors.ts';
import { urlHoldsToken } from '../token-match.ts';
import { isObject, parseBundleBody, parseResourceBody, type BundleEntry, type FhirResource } from './fhir-json.ts';
import { networkFailureKind } from './failure-kind.ts';
import { resolveNextLink, serverBaseOf } from './next-link.ts';
import type { Transport, TransportResponse } from './transport.ts';
import type { Span } from '../tracing/span.ts';

export type { FhirResource } from './fhir-json.ts';

/** One legacy request's upstream deadline: the signal that aborts its calls, and when (`Date.now()` time). */
export interface Deadline {
  signal: AbortSignal;
  at: number;
  /** The span its upstream calls are made under, when there is one (src/tracing/span.ts). */
  trace?: Span;
  /** Stops its timer once the request's upstream work is done (a timer kept for the whole timeout held its signal meanwhile). */
  end?(): void;
}

export interface FhirClientOptions {
  /** Base URL of the FHIR server, e.g. `https://fhir.example.org/fhir`. */
  baseUrl: string;
  transport: Transport;
  /** Deadline for one whole read or search, all pages included. */
  timeoutMs: number;
  /** Most pages one search may take; a longer search is an error, never a silent truncation. */
  maxPages: number;
  /** `_count` asked for on every search: large pages keep round trips few. */
  pageSize: number;
  /** Largest upstream body accepted (502 beyond), so one answer cannot exhaust memory. */
  maxBodyBytes: number;
  /** Told the duration of every upstream request, failed ones included (for metrics). */
  onUpstreamRequest?: (seconds: number) => void;
}

/** Every resource of a search, all pages: the matches in server order, the included ones apart. */
export interface SearchResult {
  matches: FhirResource[];
  included: FhirResource[];
  pages: number;
}

/** Search parameters as ordered name/value pairs (repeats allowed, order kept for stable URLs). */
export type SearchParams = ReadonlyArray<readonly [string, string]>;

/** Client for one upstream FHIR server. The caller's token is sent only as a Bearer header. */
export class FhirClient {
  readonly #options: FhirClientOptions;
  readonly #base: string;

  constructor(options: FhirClientOptions) {
    this.#options = options;
    this.#base = options.baseUrl.replace(/\/+$/, '');
  }

  /**
   * The deadline of one legacy request's upstream work, every call and page included: the plans
   * pass it to each call they make, so fallbacks cannot stretch a request past UPSTREAM_TIMEOUT_MS.
   */
  /** Most upstream pages one legacy request may read, all its searches together (the plans' budget). */
  get maxPages(): number {
    return this.#options.maxPages;
  }

  deadline(timeoutMs = this.#options.timeoutMs, trace?: Span): Deadline {
    // As AbortSignal.timeout (the same TimeoutError, a timer that keeps no process alive), but with a
    // timer that end() clears: AbortSignal.timeout's lived for the whole timeout after every request,
    // ~500 bytes each (thousands at a time under load) and weak-reference work for the GC.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), timeoutMs);
    (timer as { unref?: () => void }).unref?.();
    return { signal: controller.signal, at: Date.now() + timeoutMs, trace, end: () => clearTimeout(timer) };
  }

  /**
   * The server's CapabilityStatement (`[base]/metadata`), asked without a token (it describes the
   * server, not a patient); `undefined` when the server has none or will not show it.
   */
  async capabilityStatement(deadline = this.deadline()): Promise<unknown> {
    try {
      const response = await this.#get(`${this.#base}/metadata`, undefined, deadline, 'metadata', 1);
      return response.status === 200 ? parseResourceBody(response.body) : undefined;
    } catch (error) {
      if (error instanceof FacadeError) return undefined; // declares nothing: includes are then observed
      throw error;
    }
  }

  /** Reads `<type>/<id>`; `undefined` when the server has no such record (404 or 410). */
  async read(type: string, id: string, token: string | undefined, deadline = this.deadline()): Promise<FhirResource | undefined> {
    const url = `${this.#base}/${encodeURIComponent(type)}/${encodeURIComponent(id)}`;
    refuseTokenInUrl(url, token, 'request');
    const response = await this.#get(url, token, deadline, type, 1);
    if (response.status === 404 || response.status === 410) return undefined;
    const resource = parseResourceBody(checkStatus(response).body);
    if (resource.resourceType !== type || resource.id !== id) {
      throw new FacadeError('upstream-bad-body', `the upstream answered a read of a ${type} with another record`, { reason: 'wrong-record' });
    }
    return resource;
  }

  /**
   * Runs a search and follows `next` links until the result set is exhausted. A paging session
   * that expires under it (410 on a later page: HAPI's cached searches, Firely's anonymized links)
   * restarts the search once from its first page, within the same deadline; a second expiry is a
   * 502, never a shortened answer.
   */
  async search(type: string, params: SearchParams, token: string | undefined, deadline = this.deadline()): Promise<SearchResult> {
    const query = new URLSearchParams(params.map(([name, value]) => [name, value]));
    query.append('_count', String(this.#options.pageSize));
    const first = new URL(`${this.#base}/${encodeURIComponent(type)}?${query}`).href;
    try {
      return await this.#searchFrom(first, type, token, deadline, 0);
    } catch (error) {
      if (!(error instanceof PageExpired)) throw error;
      try {
        return await this.#searchFrom(first, type, token, deadline, error.pages);
      } catch (again) {
        if (again instanceof PageExpired) throw new FacadeError('upstream-error', 'the upstream paging session expired twice', { reason: 'page-expired' });
        throw again;
      }
    }
  }

  async #searchFrom(first: string, type: string, token: string | undefined, deadline: Deadline, pagesBefore: number): Promise<SearchResult> {
    let url: string | undefined = first;
    const seenPages = new Set<string>();
    const matches = new Map<string | symbol, FhirResource>();
    const included = new Map<string | symbol, FhirResource>();
    let pages = pagesBefore;
    let serverBase: string | undefined;
    while (url) {
      if (seenPages.has(url)) throw new FacadeError('upstream-bad-body', 'paging links form a cycle', { reason: 'link-cycle' });
      if (pages >= this.#options.maxPages) {
        throw new FacadeError('upstream-too-many-pages', `more than ${this.#options.maxPages} pages`, { reason: 'too-many-pages' });
      }
      refuseTokenInUrl(url, token, url === first ? 'request' : 'next-link');
      seenPages.add(url);
      pages += 1;
      // Every page in the searched type's bulkhead share, whatever its link names (HAPI's `?_getpages=` names none).
      const response = await this.#get(url, token, deadline, type, pages);
      if (response.status === 410 && url !== first) throw new PageExpired(pages);
      const bundle = parseBundleBody(checkStatus(response).body);
      for (const entry of bundle.entries) {
        const { resource } = entry;
        if (isOutcome(entry)) {
          rejectProblemOutcome(resource);
          continue;
        }
        // Offset-paged servers repeat an entry when data shifts under them: keep each record once.
        // A record without an id cannot be recognized again, so it is always kept.
        const key = resource.id === undefined ? Symbol('no id') : `${resource.resourceType}/${resource.id}`;
        const into = isMatch(entry, type) ? matches : included;
        if (!into.has(key)) into.set(key, resource);
      }
      serverBase ??= serverBaseOf(bundle.self, type);
      url = bundle.next === undefined ? undefined : resolveNextLink(bundle.next, url, this.#base, serverBase);
    }
    for (const key of matches.keys()) included.delete(key);
    return { matches: [...matches.values()], included: [...included.values()], pages };
  }

  async #get(url: string, token: string | undefined, deadline: Deadline, partition: string, page: number): Promise<TransportResponse> {
    const { signal } = deadline;
    // `handling=strict`: a server must refuse a search parameter it does not support rather than
    // ignore it and answer unfiltered records (FHIR R4 3.1.1.5.7).
    const headers: Record<string, string> = { accept: 'application/fhir+json', prefer: 'handling=strict' };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const started = performance.now();
    try {
      // The deadline (for retries) and the resource type (the bulkhead share) of the call this request belongs to.
      // The span and page go along for tracing only (src/upstream/traced-transport.ts).
      return await this.#options.transport({
        url,
        headers,
        signal,
        maxBodyBytes: this.#options.maxBodyBytes,
        deadline: deadline.at,
        partition,
        trace: deadline.trace,
        page,
      });
    } catch (error) {
      if (error instanceof FacadeError) throw error;
      if (signal.aborted) throw new FacadeError('upstream-timeout', undefined, { cause: error, reason: 'timeout' });
      throw new FacadeError('upstream-error', 'connection failed', { cause: error, reason: networkFailureKind(error) });
    } finally {
      this.#options.onUpstreamRequest?.((performance.now() - started) / 1000);
    }
  }
}

/**
 * The last guard of the promise that a bearer travels only in its header: a URL about to be sent
 * that holds it, in any encoding, is refused. From the request's own values that is the caller's
 * 400 (src/access/token-policy.ts refuses the caller's token earlier; this also covers the service's own
 * bearer); from a next link, an upstream echoing the token, a 502.
 */
function refuseTokenInUrl(url: string, token: string | undefined, source: 'request' | 'next-link'): void {
  if (token === undefined || !urlHoldsToken(url, token)) return;
  if (source === 'request') throw new FacadeError('bad-parameter', 'a request value holds the access token');
  throw new FacadeError('upstream-refused-link', 'a next link holds the access token', { reason: 'refused-link' });
}

/** Maps an upstream status to the caller's error; the upstream body is never echoed. */
function checkStatus(response: TransportResponse): TransportResponse {
  const { status } = response;
  if (status >= 200 && status < 300) return response;
  if (status === 401) throw new FacadeError('upstream-refused-token', undefined, { reason: 'http-401' });
  if (status === 403) throw new FacadeError('upstream-denied', undefined, { reason: 'http-403' });
  throw new FacadeError('upstream-error', `the upstream server answered HTTP ${status}`, { reason: `http-${status}` });
}

/**
 * An OperationOutcome inside a search Bundle reporting an error or warning (typically "parameter
 * ignored") means the results may not be what the legacy filter asked for: fail, never guess.
 */
function rejectProblemOutcome(outcome: FhirResource): void {
  if (!Array.isArray(outcome.issue)) throw new FacadeError('upstream-bad-body', 'an OperationOutcome has no issue list', { reason: 'not-fhir' });
  const problem = outcome.issue.some((issue) => isObject(issue) && isSearchProblem(issue.severity, issue.code));
  if (problem) throw new FacadeError('upstream-search-problem', 'the upstream reported a problem with the search', { reason: 'search-problem' });
}

/** Issue codes of a warning that says part of the search was not applied (a parameter dropped, a value not understood). */
const NOT_APPLIED = new Set(['not-supported', 'invalid', 'structure', 'required', 'value', 'invariant']);

/**
 * An error, or a warning that the search was not run as asked (Azure's lenient "parameter not
 * supported"). Other warnings and information — Epic's "no results", Azure's "_count lowered", a
 * total that is an estimate — say nothing against the records and are passed over.
 */
function isSearchProblem(severity: unknown, code: unknown): boolean {
  if (severity === 'fatal' || severity === 'error') return true;
  return severity === 'warning' && (typeof code !== 'string' || NOT_APPLIED.has(code));
}

/** A later page answered 410 Gone: the server's paging session expired (after `pages` round trips). */
class PageExpired extends Error {
  constructor(readonly pages: number) {
    super('paging session expired');
  }
}

/** An OperationOutcome entry: a server's message about the search, never a record. */
function isOutcome(entry: BundleEntry): boolean {
  const isOutcomeResource = entry.resource.resourceType === 'OperationOutcome';
  if (entry.mode === 'outcome' && !isOutcomeResource) throw new FacadeError('upstream-bad-body', 'an outcome entry holds a record', { reason: 'not-fhir' });
  return isOutcomeResource;
}

/**
 * The resource type decides what an entry is: only a record of the searched type is a match (unless
 * the server marks it `include`, as for `_include` of the same type). A record of another type is
 * an included record whatever its `search.mode` says, so it can name a reference but is never shown
 * as the kind asked for (docs/decisions.md).
 */
function isMatch(entry: BundleEntry, type: string): boolean {
  return entry.resource.resourceType === type && entry.mode !== 'include';
}
