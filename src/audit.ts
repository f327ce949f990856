/**
 * The audit log: one line per request to a legacy route, apart from the access log, for a
 * hospital's SIEM. It says who (the token's subject, never the token), for which patient, through
 * which route, which records were returned and how it ended. Unlike the access log it holds patient
 * ids and record ids: that is its purpose, so it goes to its own sink (docs/security.md).
 */

export interface AuditRecord {
  requestId: string;
  route: string;
  method: string;
  status: number;
  /** The token's `sub`; undefined in passthrough mode or before the token was validated. */
  subject: string | undefined;
  /** The patient whose records were asked for: the token's patient in service mode, else the `patient` asked. */
  patient: string | undefined;
  /** `Type/id` of every record returned (empty for an error). */
  resources: readonly string[];
  /** How the answer was served: hit, stale, miss, bypass (undefined when no answer was made). */
  cache: string | undefined;
}

export type AuditSink = (record: AuditRecord) => void;

/** `allowed` for a 2xx/304, `denied` for a 401/403/404 the service decided, `failed` otherwise. */
function outcomeOf(status: number): 'allowed' | 'denied' | 'failed' {
  if (status < 400) return 'allowed';
  return status === 401 || status === 403 || status === 404 ? 'denied' : 'failed';
}

/**
 * Audit records as JSON lines marked `"log":"audit"`, so that one stream (stdout on Node, the
 * Worker's log on Cloudflare) can carry both logs and a shipper can route them apart.
 */
export function jsonAuditSink(write: (line: string) => void = (line) => console.log(line)): AuditSink {
  return (record) => {
    // Unknown values are written as null, not left out: a SIEM parser sees the same fields on every line.
    const { subject = null, patient = null, cache = null } = record;
    write(JSON.stringify({ log: 'audit', time: new Date().toISOString(), ...record, subject, patient, cache, outcome: outcomeOf(record.status) }));
  };
}

export const silentAuditSink: AuditSink = () => {};
