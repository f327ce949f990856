/**
 * What the personality proxy answers, before encoding: a status, headers and a JSON body (or none).
 */

export interface ProxyAnswer {
  status: number;
  headers?: Record<string, string>;
  /** JSON value, raw text, or undefined for an empty body. */
  body?: unknown;
}

type Severity = 'fatal' | 'error' | 'warning' | 'information';

/** An OperationOutcome issue, with an optional server-specific code (Epic's 4101, HAPI's HAPI-0524). */
export function issue(severity: Severity, code: string, text: string, serverCode?: { system: string; code: string }): object {
  const details = serverCode === undefined ? { text } : { coding: [serverCode], text };
  return { severity, code, details, diagnostics: text };
}

/** An error answer with a one-issue OperationOutcome body, as FHIR servers answer errors. */
export function outcomeAnswer(status: number, code: string, text: string): ProxyAnswer {
  return { status, body: { resourceType: 'OperationOutcome', issue: [issue('error', code, text)] } };
}

/** Splits a raw request target into its path and its query exactly as sent (no decoding). */
export function splitTarget(target: string): { path: string; rawQuery: string } {
  const at = target.indexOf('?');
  return at < 0 ? { path: target, rawQuery: '' } : { path: target.slice(0, at), rawQuery: target.slice(at + 1) };
}

/** The raw (undecoded) value of the first `name=` member of a raw query, or undefined. */
export function rawQueryValue(rawQuery: string, name: string): string | undefined {
  const member = rawQuery.split('&').find((part) => part.startsWith(`${name}=`));
  return member?.slice(name.length + 1);
}

/** A raw query without its `name=` members, the others kept byte for byte. */
export function withoutRawMember(rawQuery: string, name: string): string {
  return rawQuery
    .split('&')
    .filter((part) => part !== '' && !part.startsWith(`${name}=`))
    .join('&');
}
