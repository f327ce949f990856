/**
 * The old system's two forms of time (../shared/LEGACY-WIRE.md, docs/decisions.md "Timestamps"):
 * a clinical timestamp `YYYY-MM-DDTHH:MM:SS.sss±HH:MM` in the site's time zone (`LEGACY_TIME_ZONE`),
 * and a calendar date `YYYY-MM-DD` (the local date of a FHIR dateTime). `meta.lastUpdated` is not
 * local time: fhir-values.ts writes it in UTC.
 */
import * as v from 'valibot';
import { BoundedMemo } from '../src/fhir/bounded-memo.ts';
import { zoneOffsets, type ZoneOffsets } from './zone-offsets.ts';

export interface LegacyTime {
  /** The IANA time zone the old system wrote its timestamps in. */
  readonly zone: string;
  /**
   * A FHIR date, dateTime or instant as a legacy timestamp: the same instant in the site's zone,
   * three fraction digits (truncated), a numeric offset; a date alone is local midnight. A partial
   * date (`2019`, `2019-05`) and text that is no FHIR dateTime are returned as written: a day or an
   * instant the record does not hold is never invented.
   */
  timestamp(value: unknown): string | undefined;
  /** The local calendar date of a FHIR dateTime, `YYYY-MM-DD`; a date alone as written; else undefined. */
  date(value: unknown): string | undefined;
  /**
   * A FHIR dateTime inside a value passed through as FHIR writes it (spec "not shown"): in the
   * legacy form when it has a time of day, as written when it is a date, since nothing says the
   * old system's member was a timestamp.
   */
  writtenDateTime(value: unknown): unknown;
}

/** A legacy timestamp, or the partial date written in its place (the schemas of timestamp members). */
export const legacyTimestampSchema = v.pipe(
  v.string(),
  v.regex(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}|\d{4}(-\d{2})?)$/, 'must be a legacy timestamp'),
);

/** FHIR date / dateTime / instant (R4 datatypes), seconds optional as some servers write them. */
const FHIR_DATE_TIME = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;

interface ReadTime {
  /** Milliseconds since the epoch of the wall-clock reading taken as UTC (the local reading, before any offset). */
  wall: number;
  /** Offset written with the value, in minutes; undefined when it had none. */
  offsetMinutes: number | undefined;
  /** How much of the value is written: 1 year, 2 month, 3 day, 4 time. */
  precision: 1 | 2 | 3 | 4;
}

function readFhirDateTime(written: string): ReadTime | undefined {
  const match = FHIR_DATE_TIME.exec(written);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction, offset] = match;
  const numbers = [year, month ?? '01', day ?? '01', hour ?? '00', minute ?? '00', second ?? '00'].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [y, mo, d, h, mi, s] = numbers;
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 60) return undefined;
  const millis = fraction === undefined ? 0 : Number(fraction.padEnd(3, '0').slice(0, 3));
  const precision = hour !== undefined ? 4 : day !== undefined ? 3 : month !== undefined ? 2 : 1;
  return { wall: wallClock(y, mo, d, h, mi, s, millis), offsetMinutes: offset === undefined ? undefined : offsetMinutesOf(offset), precision };
}

/** A wall-clock reading as if it were UTC milliseconds. */
function wallClock(year: number, month: number, day: number, hour: number, minute: number, second: number, millis: number): number {
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Date.UTC reads the years 0–99 as 1900–1999.
  const reading = new Date(0);
  reading.setUTCFullYear(year, month - 1, day);
  return reading.setUTCHours(hour, minute, second, millis);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

function offsetMinutesOf(written: string): number {
  if (written === 'Z') return 0;
  const sign = written.startsWith('-') ? -1 : 1;
  return sign * (Number(written.slice(1, 3)) * 60 + Number(written.slice(4, 6)));
}

const MINUTE = 60_000;
/** Timestamps remembered per zone before the memory starts again. */
const MAX_REMEMBERED = 50_000;

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** `±HH:MM` of an offset in minutes. */
function offsetText(offsetMinutes: number): string {
  const size = Math.abs(offsetMinutes);
  return `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(size / 60))}:${pad(size % 60)}`;
}

/** `YYYY-MM-DDTHH:MM:SS.sss±HH:MM` of an instant seen with the given offset (FHIR years 0001–9999 keep four digits in toISOString). */
function formatTimestamp(instant: number, offsetMinutes: number): string {
  return new Date(instant + offsetMinutes * MINUTE).toISOString().slice(0, 23) + offsetText(offsetMinutes);
}

/** The legacy forms of time in one IANA zone; throws a RangeError for a zone the runtime does not know. */
export function createLegacyTime(zone: string): LegacyTime {
  const offsets: ZoneOffsets = zoneOffsets(zone);
  /** The instant of a value: its own offset, else (no offset written) the site's local time. */
  const instantOf = (read: ReadTime): number =>
    read.offsetMinutes !== undefined ? read.wall - read.offsetMinutes * MINUTE : offsets.instantOfLocal(read.wall);
  const legacyForm = (read: ReadTime): string => {
    const instant = instantOf(read);
    return formatTimestamp(instant, offsets.offsetMinutesAt(instant));
  };
  // A search repeats its times (issued = effective, one encounter's many results): each form remembered.
  const timestamps = new BoundedMemo(MAX_REMEMBERED);
  const writtenDateTimes = new BoundedMemo(MAX_REMEMBERED);
  const dates = new BoundedMemo(MAX_REMEMBERED);
  return {
    zone,
    timestamp(value) {
      if (typeof value !== 'string') return undefined;
      const known = timestamps.get(value);
      if (known !== undefined) return known;
      const read = readFhirDateTime(value);
      return timestamps.set(value, read && read.precision >= 3 ? legacyForm(read) : value);
    },
    writtenDateTime(value) {
      if (typeof value !== 'string') return value;
      const known = writtenDateTimes.get(value);
      if (known !== undefined) return known;
      const read = readFhirDateTime(value);
      return writtenDateTimes.set(value, read?.precision === 4 ? legacyForm(read) : value);
    },
    date(value) {
      if (typeof value !== 'string') return undefined;
      const known = dates.get(value);
      if (known !== undefined) return known === NO_DATE ? undefined : known;
      const read = readFhirDateTime(value);
      let date: string | undefined;
      if (read && read.precision === 3) date = value;
      else if (read && read.precision === 4) {
        const instant = instantOf(read);
        date = new Date(instant + offsets.offsetMinutesAt(instant) * MINUTE).toISOString().slice(0, 10);
      }
      dates.set(value, date ?? NO_DATE);
      return date;
    },
  };
}

/** What `dates` remembers for a value that has no local date. */
const NO_DATE = '';

/** The zone when `LEGACY_TIME_ZONE` is unset. */
export const UTC_LEGACY_TIME: LegacyTime = createLegacyTime('UTC');
