/**
 * The old system's forms of time (mappers/legacy-time.ts; docs/decisions.md, "Timestamps"): each rule
 * of the decision, in zones with and without daylight saving, at its edges.
 */
import { describe, expect, it } from 'vitest';
import { createLegacyTime, legacyTimestampSchema, UTC_LEGACY_TIME } from '../mappers/legacy-time.ts';
import * as v from 'valibot';
import { ConfigError, parseConfig } from '../src/config.ts';

const eastern = createLegacyTime('America/New_York');

describe('timestamp', () => {
  it('writes the same instant in the site zone with three fraction digits and a numeric offset, never Z', () => {
    expect(eastern.timestamp('2019-03-02T14:30:00Z')).toBe('2019-03-02T09:30:00.000-05:00');
    expect(eastern.timestamp('2019-07-02T14:30:00.5+00:00')).toBe('2019-07-02T10:30:00.500-04:00');
    expect(UTC_LEGACY_TIME.timestamp('2019-03-02T09:30:00-05:00')).toBe('2019-03-02T14:30:00.000+00:00');
    expect(createLegacyTime('Asia/Kolkata').timestamp('2019-03-02T00:00:00Z')).toBe('2019-03-02T05:30:00.000+05:30');
  });

  it('cuts fractions beyond milliseconds rather than rounding into the next second', () => {
    expect(UTC_LEGACY_TIME.timestamp('2019-12-31T23:59:59.9999Z')).toBe('2019-12-31T23:59:59.999+00:00');
  });

  it('writes a date alone as local midnight, with the offset of that day', () => {
    expect(eastern.timestamp('2015-06-22')).toBe('2015-06-22T00:00:00.000-04:00');
    expect(eastern.timestamp('2015-01-22')).toBe('2015-01-22T00:00:00.000-05:00');
    // São Paulo moved its clocks at midnight: 2018-11-04 began at 01:00.
    expect(createLegacyTime('America/Sao_Paulo').timestamp('2018-11-04')).toBe('2018-11-04T01:00:00.000-02:00');
  });

  it('reads a time without offset as local time: the earlier instant when it happened twice, later by the skip when never', () => {
    expect(eastern.timestamp('2019-11-03T01:30:00')).toBe('2019-11-03T01:30:00.000-04:00');
    expect(eastern.timestamp('2019-03-10T02:30:00')).toBe('2019-03-10T03:30:00.000-04:00');
    expect(eastern.timestamp('2019-06-01T08:00')).toBe('2019-06-01T08:00:00.000-04:00');
  });

  it('writes the offset that holds at the instant across a change of clocks', () => {
    expect(eastern.timestamp('2019-11-03T05:59:59Z')).toBe('2019-11-03T01:59:59.000-04:00');
    expect(eastern.timestamp('2019-11-03T06:00:00Z')).toBe('2019-11-03T01:00:00.000-05:00');
  });

  it('leaves partial dates and text that is no FHIR dateTime as written; undefined for a non-string', () => {
    for (const written of ['2019', '2019-05', 'last spring', '2019-02-29', '2019-13-01T00:00:00Z']) expect(eastern.timestamp(written)).toBe(written);
    expect(eastern.timestamp(undefined)).toBeUndefined();
    expect(eastern.timestamp(20190301)).toBeUndefined();
  });

  it('rounds old local mean time to whole minutes, the text still naming the instant', () => {
    const written = eastern.timestamp('1850-01-01T00:00:00Z')!;
    expect(written).toBe('1849-12-31T19:04:00.000-04:56');
    expect(Date.parse(written)).toBe(Date.parse('1850-01-01T00:00:00Z'));
  });

  it('keeps four-digit years below 100 (no 19xx)', () => {
    expect(UTC_LEGACY_TIME.timestamp('0050-02-28')).toBe('0050-02-28T00:00:00.000+00:00');
  });

  it('writes only what its schema accepts', () => {
    for (const value of ['2019-03-02T14:30:00Z', '2015-06-22', '2019-05', '2019']) {
      expect(v.safeParse(legacyTimestampSchema, eastern.timestamp(value)).success, value).toBe(true);
    }
    expect(v.safeParse(legacyTimestampSchema, '2019-03-02T14:30:00Z').success).toBe(false);
  });
});

describe('date and writtenDateTime', () => {
  it('date: the local calendar date of a dateTime, a date alone as written, nothing for a partial date', () => {
    expect(eastern.date('2022-09-15T02:30:00Z')).toBe('2022-09-14');
    expect(UTC_LEGACY_TIME.date('2022-09-14T23:30:00-04:00')).toBe('2022-09-15');
    expect(eastern.date('2022-09-15')).toBe('2022-09-15');
    expect(eastern.date('2022-09')).toBeUndefined();
  });

  it('writtenDateTime: the legacy form for a time of day, a date as written, anything else untouched', () => {
    expect(eastern.writtenDateTime('2024-02-01T12:45:00Z')).toBe('2024-02-01T07:45:00.000-05:00');
    expect(eastern.writtenDateTime('2024-02-01')).toBe('2024-02-01');
    expect(eastern.writtenDateTime(7)).toBe(7);
  });
});

describe('LEGACY_TIME_ZONE', () => {
  it('is UTC by default, takes an IANA name, and refuses a zone the runtime does not know', () => {
    expect(parseConfig({}).LEGACY_TIME_ZONE).toBe('UTC');
    expect(parseConfig({ LEGACY_TIME_ZONE: 'America/Chicago' }).LEGACY_TIME_ZONE).toBe('America/Chicago');
    expect(() => parseConfig({ LEGACY_TIME_ZONE: 'Eastern' })).toThrow(ConfigError);
    expect(() => parseConfig({ LEGACY_TIME_ZONE: 'Eastern' })).toThrow(/LEGACY_TIME_ZONE: must be an IANA time zone name/);
  });
});
