/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): reading a caller's `traceparent` and
 * `tracestate` headers, writing ours, and the random ids of traces and spans. Runtime-neutral.
 */

/** The part of a valid `traceparent` a span continues from. */
export interface CallerContext {
  traceId: string;
  /** The caller's span: the parent of ours. */
  spanId: string;
  /** Whether the caller records this trace (the `sampled` flag): we follow its choice. */
  sampled: boolean;
}

const VERSION_00 = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
/** A later version: the same first four fields, and possibly more after a `-` (spec 3.2.4). */
const LATER_VERSION = /^(?!ff)[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/**
 * The caller's context, or `undefined` for a missing or malformed header (upper-case hex, zero ids,
 * version `ff`, two headers joined by a comma): the spec says to ignore it and start a new trace.
 */
export function parseTraceparent(header: string | undefined): CallerContext | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const match = VERSION_00.exec(value) ?? (value.startsWith('00-') ? null : LATER_VERSION.exec(value));
  if (match === null) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = match;
  if (traceId === ZERO_TRACE_ID || spanId === ZERO_SPAN_ID) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

/** The `traceparent` naming a span (version 00, the only one we write). */
export function formatTraceparent(traceId: string, spanId: string, sampled: boolean): string {
  return `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`;
}

/** Most `tracestate` a vendor must pass on (spec 3.3.1.5); a longer one is dropped whole rather than cut. */
const MAX_TRACESTATE_LENGTH = 512;
const MAX_TRACESTATE_MEMBERS = 32;
const TRACESTATE_MEMBER =
  /^(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/**
 * The caller's `tracestate`, to be passed on unchanged, or `undefined` when it is absent or not
 * valid: the spec forbids passing on part of a list that failed to parse.
 */
export function validTracestate(header: string | undefined): string | undefined {
  if (header === undefined || header.length > MAX_TRACESTATE_LENGTH) return undefined;
  const members = header
    .split(',')
    .map((member) => member.trim())
    .filter((member) => member !== '');
  if (members.length === 0 || members.length > MAX_TRACESTATE_MEMBERS) return undefined;
  return members.every((member) => TRACESTATE_MEMBER.test(member)) ? header : undefined;
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
/** Random bytes are drawn 256 at a time: one `getRandomValues` call serves many ids. */
const pool = new Uint8Array(256);
// Drawn on first use, not at load: workerd refuses random values in a module's global scope.
let poolOffset = pool.length;

function randomHex(bytes: number): string {
  if (poolOffset + bytes > pool.length) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  let hex = '';
  for (let index = 0; index < bytes; index += 1) hex += HEX[pool[poolOffset++]!];
  return hex;
}

/** A new random trace id (16 bytes, never all zero). */
export function newTraceId(): string {
  let id = randomHex(16);
  while (id === ZERO_TRACE_ID) id = randomHex(16);
  return id;
}

/** A new random span id (8 bytes, never all zero). */
export function newSpanId(): string {
  let id = randomHex(8);
  while (id === ZERO_SPAN_ID) id = randomHex(8);
  return id;
}
