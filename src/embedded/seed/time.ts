/**
 * Timestamp helpers.
 *
 * The generator works in "wall-clock milliseconds": epoch milliseconds of local clinic time read
 * as if it were UTC. Formatting writes that wall time and appends the US Eastern offset in force
 * on that date (the clinic is in Massachusetts), so output never depends on the host's time zone
 * and clients see both -05:00 and -04:00, as in real exports.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** 'YYYY-MM-DD' → wall-clock milliseconds at local midnight. */
export function parseDate(date: string): number {
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms)) throw new Error(`Invalid date: ${date}`);
  return ms;
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n));

/**
 * Civil date from days since 1970-01-01 (Howard Hinnant's algorithm). Formatting by hand instead
 * of through Date.toISOString matters: a 200-patient run formats about a million timestamps.
 */
function civilDate(wallMs: number): string {
  const days = Math.floor(wallMs / DAY_MS);
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(day)}`;
}

function clockTime(wallMs: number): { hms: string; millis: number } {
  const msOfDay = wallMs - Math.floor(wallMs / DAY_MS) * DAY_MS;
  const seconds = Math.floor(msOfDay / 1000);
  const hms = `${pad2(Math.floor(seconds / 3600))}:${pad2(Math.floor(seconds / 60) % 60)}:${pad2(seconds % 60)}`;
  return { hms, millis: msOfDay % 1000 };
}

/** 'YYYY-MM-DD'. */
export function formatDate(wallMs: number): string {
  return civilDate(wallMs);
}

/** Wall-clock ms of the n-th (1-based) Sunday of a month at 02:00, or the last one when n is 0. */
function sundayAt2am(year: number, month: number, n: number): number {
  const weekday = (first: number): number => (((Math.floor(first / DAY_MS) + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
  if (n === 0) {
    const last = Date.UTC(year, month + 1, 1) - DAY_MS;
    return last - weekday(last) * DAY_MS + 2 * HOUR_MS;
  }
  const first = Date.UTC(year, month, 1);
  return first + (((7 - weekday(first)) % 7) + (n - 1) * 7) * DAY_MS + 2 * HOUR_MS;
}

const dstBoundsByYear = new Map<number, readonly [number, number]>();

/** US Eastern offset in force at a wall-clock instant (post-2007 and 1987–2006 DST rules). */
export function easternOffset(wallMs: number): string {
  const year = yearOf(wallMs);
  let bounds = dstBoundsByYear.get(year);
  if (!bounds) {
    bounds = year >= 2007 ? [sundayAt2am(year, 2, 2), sundayAt2am(year, 10, 1)] : [sundayAt2am(year, 3, 1), sundayAt2am(year, 9, 0)];
    dstBoundsByYear.set(year, bounds);
  }
  return wallMs >= bounds[0] && wallMs < bounds[1] ? '-04:00' : '-05:00';
}

/** FHIR dateTime with seconds and offset, e.g. '2024-03-05T09:30:00-05:00'. */
export function formatDateTime(wallMs: number): string {
  return `${civilDate(wallMs)}T${clockTime(wallMs).hms}${easternOffset(wallMs)}`;
}

/** FHIR instant with milliseconds and offset, e.g. '2024-03-05T09:30:00.123-05:00'. */
export function formatInstant(wallMs: number): string {
  const { hms, millis } = clockTime(wallMs);
  return `${civilDate(wallMs)}T${hms}.${pad3(millis)}${easternOffset(wallMs)}`;
}

/** Whole years between two wall-clock instants (birthday-aware). */
export function yearsBetween(fromMs: number, toMs: number): number {
  const from = new Date(fromMs);
  const to = new Date(toMs);
  let years = to.getUTCFullYear() - from.getUTCFullYear();
  const beforeBirthday = to.getUTCMonth() < from.getUTCMonth() || (to.getUTCMonth() === from.getUTCMonth() && to.getUTCDate() < from.getUTCDate());
  if (beforeBirthday) years -= 1;
  return years;
}

/** Calendar year of a wall-clock instant. */
export function yearOf(wallMs: number): number {
  return new Date(wallMs).getUTCFullYear();
}

/** Calendar month (1–12) of a wall-clock instant. */
export function monthOf(wallMs: number): number {
  return new Date(wallMs).getUTCMonth() + 1;
}
