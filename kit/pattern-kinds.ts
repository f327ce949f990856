/**
 * The kind of a difference as the report groups it. json-diff.ts says only whether a value is
 * missing, extra, changed or in another key order; a site's migration needs to know *how* it
 * changed, because one systematic formatting choice (an instant written with another offset, `1.0`
 * for `1`) shows up in thousands of answers and is decided once, while a changed value is a bug:
 *
 * - `format`: the same value written differently — two strings naming the same instant (or the same
 *   local date-time, or the same date), or two numbers of the same decimal value;
 * - `type`: a value of another JSON type (`"1"` and `1`, an object and an array);
 * - `value`: any other change.
 *
 * Worked out from the values' JSON text as the difference carries it (already scrubbed of tokens,
 * and redacted with `--redact`), so the same applies to bodies, statuses and headers.
 */
import type { Difference } from './json-diff.ts';

export const PATTERN_KINDS = ['missing', 'extra', 'value', 'format', 'type', 'key-order'] as const;
export type PatternKind = (typeof PATTERN_KINDS)[number];

export function patternKind(difference: Difference): PatternKind {
  if (difference.kind !== 'changed') return difference.kind;
  return changeKind(difference.left ?? '', difference.right ?? '');
}

type JsonType = 'string' | 'number' | 'object' | 'array' | 'boolean' | 'null' | 'text';

/** The JSON type of a value's text, from its first character (texts may be cut short). */
function jsonType(text: string): JsonType {
  const first = text[0];
  if (first === '"') return 'string';
  if (first === '{') return 'object';
  if (first === '[') return 'array';
  if (first === 't' || first === 'f') return 'boolean';
  if (first === 'n') return 'null';
  if (first === '-' || (first !== undefined && first >= '0' && first <= '9')) return 'number';
  return 'text';
}

export function changeKind(left: string, right: string): 'value' | 'format' | 'type' {
  const type = jsonType(left);
  if (type !== jsonType(right)) return 'type';
  if (type === 'number') return sameNumber(left, right) ? 'format' : 'value';
  if (type === 'string') {
    const leftString = stringOf(left);
    const rightString = stringOf(right);
    if (leftString !== undefined && rightString !== undefined && sameDateTime(leftString, rightString)) return 'format';
  }
  return 'value';
}

function stringOf(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined; // cut short: a long string is no date
  }
}

const NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The decimal value of a JSON number as `sign digits e exponent` with no leading or trailing zero
 * in the digits: `1.0`, `1`, `10e-1` and `0.1e1` all give `+1e0`. Exact (no floating point), so
 * `0.1` and `0.10000000000000001` stay apart.
 */
export function canonicalNumber(text: string): string | undefined {
  const match = NUMBER.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return '0'; // -0, 0.00, 0e5: zero whatever its sign
  let power = Number(exponent) - fraction.length;
  const trimmed = digits.replace(/0+$/, '');
  power += digits.length - trimmed.length;
  digits = trimmed;
  return `${sign === '-' ? '-' : '+'}${digits}e${power}`;
}

export function sameNumber(left: string, right: string): boolean {
  const a = canonicalNumber(left);
  return a !== undefined && a === canonicalNumber(right);
}

/**
 * A date or date-time as ISO 8601 writes it, extended (`2019-03-02T09:30:00.000-05:00`) or basic
 * (`20190302T093000-0500`, the legacy `20200113`), with a space for `T` tolerated.
 */
const DATE_TIME = /^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2}):?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * What a date or date-time denotes, so two spellings compare equal: a date by its day; a date-time
 * with a zone by its instant (UTC milliseconds to the minute, then seconds and the fraction without
 * trailing zeros, so sub-millisecond digits count); one without a zone by its local reading. A date
 * and a date-time, or a zoned and an unzoned date-time, are different values, not formats.
 */
export function dateTimeMeaning(text: string): string | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second = '00', fraction = '', zone] = match;
  const numbers = [year, month, day].map(Number) as [number, number, number];
  if (numbers[1] < 1 || numbers[1] > 12 || numbers[2] < 1 || numbers[2] > 31) return undefined;
  if (hour === undefined || minute === undefined) return `date ${year}${month}${day}`;
  if (Number(hour) > 24 || Number(minute) > 59 || Number(second) > 60) return undefined;
  const seconds = `${second}.${fraction.replace(/0+$/, '')}`;
  const local = Date.UTC(numbers[0], numbers[1] - 1, numbers[2], Number(hour), Number(minute));
  if (zone === undefined) return `local ${local} ${seconds}`;
  return `instant ${local - offsetMinutes(zone) * 60_000} ${seconds}`;
}

function offsetMinutes(zone: string): number {
  if (zone === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  return zone.startsWith('-') ? -minutes : minutes;
}

export function sameDateTime(left: string, right: string): boolean {
  const meaning = dateTimeMeaning(left);
  return meaning !== undefined && meaning === dateTimeMeaning(right);
}
