/**
 * The one error type of the service and its catalog. Every error the service answers with is a
 * FacadeError rendered as a FHIR OperationOutcome; every code is documented in docs/errors.md
 * (test/error-codes.test.ts fails for one that is not).
 */

/** Catalog of every error the service can produce: HTTP status, OperationOutcome issue code, text. */
export const ERROR_CATALOG = {
  'bad-parameter': { status: 400, issue: 'invalid', text: 'A request parameter has an invalid value' },
  'bad-token': { status: 401, issue: 'login', text: 'The access token is not a valid token' },
  'bad-request': { status: 400, issue: 'structure', text: 'The HTTP request is malformed' },
  'unauthorized': { status: 401, issue: 'login', text: 'An access_token is required' },
  'forbidden': { status: 403, issue: 'forbidden', text: 'This collection cannot be read without an access_token' },
  'invalid-token': { status: 401, issue: 'login', text: 'The access token is invalid, expired or revoked' },
  'scope-denied': { status: 403, issue: 'forbidden', text: 'The access token does not grant this record type' },
  'patient-denied': { status: 403, issue: 'forbidden', text: 'The access token does not grant this patient' },
  'not-found': { status: 404, issue: 'not-found', text: 'No record with this id' },
  'unknown-path': { status: 404, issue: 'not-supported', text: 'No such operation' },
  'method-not-allowed': { status: 405, issue: 'not-supported', text: 'This interface is read-only' },
  'uri-too-long': { status: 414, issue: 'too-long', text: 'The request URL is too long' },
  'headers-too-large': { status: 431, issue: 'too-long', text: 'The request line and headers are too large' },
  'payload-too-large': { status: 413, issue: 'too-long', text: 'The request body is too large' },
  'unsupported-media-type': { status: 415, issue: 'not-supported', text: 'Unsupported request body type' },
  // The upstream refusing the caller's token (passthrough mode): the caller's 401 and 403, in the upstream's words.
  'upstream-refused-token': { status: 401, issue: 'login', text: 'The upstream FHIR server refused the access token' },
  'upstream-denied': { status: 403, issue: 'forbidden', text: 'The upstream FHIR server denied access to this record' },
  'upstream-error': { status: 502, issue: 'transient', text: 'The upstream FHIR server failed' },
  'upstream-bad-body': { status: 502, issue: 'invalid', text: 'The upstream FHIR server sent an unusable answer' },
  'upstream-too-large': { status: 502, issue: 'too-costly', text: 'The upstream answer is larger than the service accepts' },
  'upstream-search-problem': { status: 502, issue: 'processing', text: 'The upstream server could not run the search as asked' },
  'upstream-too-many-pages': { status: 502, issue: 'too-costly', text: 'The upstream search has more pages than the service reads' },
  'upstream-refused-link': { status: 502, issue: 'security', text: 'The upstream sent a paging link outside its base URL' },
  'auth-server-error': { status: 502, issue: 'transient', text: 'The authorization server failed' },
  'upstream-credential-failed': { status: 502, issue: 'security', text: 'The service could not authenticate to the upstream FHIR server' },
  'upstream-timeout': { status: 504, issue: 'timeout', text: 'The upstream FHIR server did not answer in time' },
  'internal': { status: 500, issue: 'exception', text: 'Internal error' },
  // Upstream resilience (docs/decisions.md, "Upstream resilience"): 503 with a Retry-After.
  'upstream-throttled': { status: 503, issue: 'throttled', text: 'The upstream FHIR server is throttling requests; retry after the time given' },
  'upstream-busy': { status: 503, issue: 'transient', text: 'Too many requests are waiting for the upstream FHIR server; retry after the time given' },
  'service-unavailable': { status: 503, issue: 'transient', text: 'The service is unavailable' },
  'service-starting': { status: 503, issue: 'transient', text: 'The service is starting; retry after the time given' },
  'upstream-unavailable': {
    status: 503,
    issue: 'transient',
    text: 'The upstream FHIR server is failing; requests to it are paused, retry after the time given',
  },
} as const satisfies Record<string, { status: number; issue: string; text: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** An error with its catalog code, an optional detail safe to show the caller, and a cause for logs. */
export class FacadeError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Shown to the caller; must never hold a token, an upstream body or patient data. */
  readonly detail: string | undefined;
  /**
   * What went wrong, for the operator's log line: a word from a fixed vocabulary
   * (`connection-refused`, `dns`, `tls`, `http-503`, `not-json`, …), never a value from a request
   * or an upstream answer.
   */
  readonly reason: string | undefined;
  /** Seconds a caller should wait before trying again: sent as `Retry-After`. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, detail?: string, options?: { cause?: unknown; reason?: string; retryAfterSeconds?: number }) {
    super(detail ? `${ERROR_CATALOG[code].text}: ${detail}` : ERROR_CATALOG[code].text, options);
    this.name = 'FacadeError';
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.detail = detail;
    this.reason = options?.reason;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

/** FHIR OperationOutcome body (the subset this service writes). */
export interface OperationOutcome {
  resourceType: 'OperationOutcome';
  issue: { severity: 'error'; code: string; diagnostics: string; details: { text: string } }[];
}

/** Renders an error as the OperationOutcome body the caller receives. */
export function toOperationOutcome(error: FacadeError): OperationOutcome {
  const entry = ERROR_CATALOG[error.code];
  return {
    resourceType: 'OperationOutcome',
    issue: [
      {
        severity: 'error',
        code: entry.issue,
        diagnostics: error.detail ? `${entry.text}: ${error.detail}` : entry.text,
        details: { text: error.code },
      },
    ],
  };
}

/** Normalizes anything thrown into a FacadeError; unknown errors become 500 with no detail shown. */
export function toFacadeError(error: unknown): FacadeError {
  if (error instanceof FacadeError) return error;
  return new FacadeError('internal', undefined, { cause: error });
}
