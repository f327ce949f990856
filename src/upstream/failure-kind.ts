/**
 * What kind of network failure an upstream request met, in words an operator can act on. Read from
 * the error codes Node, undici and TLS put on the error or its causes; never from a message, which
 * may hold a URL with its query.
 */

/** System and undici error codes, by the kind the log line names. */
const KIND_BY_CODE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection-refused',
  ECONNRESET: 'connection-reset',
  EPIPE: 'connection-reset',
  UND_ERR_SOCKET: 'connection-reset',
  UND_ERR_CLOSED: 'connection-reset',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_FAIL: 'dns',
  ETIMEDOUT: 'network-timeout',
  UND_ERR_CONNECT_TIMEOUT: 'connect-timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'truncated-body',
};

/** Errors known by their class rather than a code: a deadline, or an answer that is not HTTP. */
const KIND_BY_NAME: Readonly<Record<string, string>> = { TimeoutError: 'timeout', HTTPParserError: 'not-http' };

/** TLS failures carry many codes (certificate, handshake, protocol): all are one kind for the operator. */
const TLS_CODE = /^(CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED|SELF_SIGNED_CERT|HOSTNAME_MISMATCH)/;

/** The kind of a failed connection or exchange: `connection-refused`, `dns`, `tls`, …; `network` when unknown. */
export function networkFailureKind(error: unknown): string {
  // Causes nest (fetch's TypeError → undici's error → the system error): the first known one wins.
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const kind = kindOf(current as { code?: unknown; name?: unknown });
    if (kind !== undefined) return kind;
    current = (current as { cause?: unknown }).cause;
  }
  return 'network';
}

function kindOf(error: { code?: unknown; name?: unknown }): string | undefined {
  const { code, name } = error;
  if (typeof code === 'string') {
    if (Object.hasOwn(KIND_BY_CODE, code)) return KIND_BY_CODE[code];
    if (TLS_CODE.test(code)) return 'tls';
    if (code.startsWith('HPE_')) return 'not-http';
  }
  return typeof name === 'string' && Object.hasOwn(KIND_BY_NAME, name) ? KIND_BY_NAME[name] : undefined;
}
