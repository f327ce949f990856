/**
 * UTC offsets of one IANA time zone, from the runtime's time-zone data (Intl, on Node and Workers
 * alike). Asking Intl costs microseconds and a large search maps thousands of timestamps, so each
 * UTC day's offset is remembered when it is the same at both ends of the day (all but the few days
 * a zone changes its clocks; those are asked per instant).
 */

export interface ZoneOffsets {
  /** The zone's offset from UTC at an instant, in whole minutes (old local mean times rounded). */
  offsetMinutesAt(instant: number): number;
  /**
   * The instant a local wall-clock reading (given as if it were UTC milliseconds) stands for: the
   * earlier one when clocks went back and it happened twice; when clocks went forward and it never
   * happened, the reading moved later by the length of the skip (as java.time does).
   */
  instantOfLocal(wall: number): number;
}

const MINUTE = 60_000;
const DAY = 86_400_000;
/** Days remembered per zone before the memory starts again (a century of days is ~36,500). */
const MAX_REMEMBERED_DAYS = 100_000;

const UTC: ZoneOffsets = { offsetMinutesAt: () => 0, instantOfLocal: (wall) => wall };

export function zoneOffsets(zone: string): ZoneOffsets {
  // Throws a RangeError for a zone the runtime does not know: configuration checks rely on it.
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  if (format.resolvedOptions().timeZone === 'UTC') return UTC;

  const exactOffset = (instant: number): number => {
    const parts: Record<string, number> = {};
    for (const part of format.formatToParts(instant)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
    const reading = new Date(0);
    reading.setUTCFullYear(parts.year!, parts.month! - 1, parts.day!);
    reading.setUTCHours(parts.hour! % 24, parts.minute!, parts.second!);
    return Math.round((reading.getTime() - Math.floor(instant / 1000) * 1000) / MINUTE);
  };

  // A day's offset, or NaN for a day on which the zone changes its clocks.
  const dayOffsets = new Map<number, number>();
  const offsetMinutesAt = (instant: number): number => {
    const day = Math.floor(instant / DAY);
    let known = dayOffsets.get(day);
    if (known === undefined) {
      const atStart = exactOffset(day * DAY);
      known = atStart === exactOffset((day + 1) * DAY - 1) ? atStart : Number.NaN;
      if (dayOffsets.size >= MAX_REMEMBERED_DAYS) dayOffsets.clear();
      dayOffsets.set(day, known);
    }
    return Number.isNaN(known) ? exactOffset(instant) : known;
  };

  return {
    offsetMinutesAt,
    instantOfLocal(wall) {
      // The offsets in force around the reading; a reading can only mean one of them.
      const before = offsetMinutesAt(wall - DAY);
      const after = offsetMinutesAt(wall + DAY);
      const meanings = [before, after].map((offset) => wall - offset * MINUTE).filter((instant) => instant + offsetMinutesAt(instant) * MINUTE === wall);
      return meanings.length > 0 ? Math.min(...meanings) : wall - before * MINUTE;
    },
  };
}
