/**
 * Deterministic synthetic patient data for seeding the embedded FHIR server.
 *
 * Output is a list of FHIR R4 transaction Bundles: first the shared provider directory (PUT
 * entries with fixed ids such as `Practitioner/pract-1`), then one bundle per patient whose
 * entries are POSTs with `urn:uuid:` fullUrls, like Synthea exports. The same options always
 * give byte-identical output: all randomness comes from a seeded PRNG and all dates are
 * anchored on `endDate`, never on the clock.
 */
import type { Bundle } from '@medplum/fhirtypes';
import { buildPatientRecordBundle } from './patient-record.js';
import { buildSharedDirectoryBundle } from './shared-directory.js';
import { parseDate } from './time.js';

export interface SeedOptions {
  /** Number of patients (default 6). */
  patients?: number;
  /** PRNG seed (default 1). */
  seed?: number;
  /** Length of each patient's history in years, ending at endDate (default 6). */
  years?: number;
  /** Last day of the history, YYYY-MM-DD (default '2025-12-31'); fixed so output is deterministic. */
  endDate?: string;
}

export const DEFAULT_SEED_OPTIONS: Required<SeedOptions> = { patients: 6, seed: 1, years: 6, endDate: '2025-12-31' };

export function generateSyntheticBundles(options: SeedOptions = {}): Bundle[] {
  const { patients, seed, years, endDate } = { ...DEFAULT_SEED_OPTIONS, ...options };
  if (!Number.isInteger(patients) || patients < 0) throw new Error(`patients must be a non-negative integer, got ${patients}`);
  if (!(years > 0)) throw new Error(`years must be positive, got ${years}`);
  // End of the last day, so visits can fall on endDate itself.
  const historyEndMs = parseDate(endDate) + 86_399_999;
  const end = new Date(parseDate(endDate));
  const start = Date.UTC(end.getUTCFullYear() - Math.floor(years), end.getUTCMonth(), end.getUTCDate()) - Math.round((years % 1) * 365) * 86_400_000;

  const bundles: Bundle[] = [buildSharedDirectoryBundle()];
  for (let number = 1; number <= patients; number++) {
    bundles.push(buildPatientRecordBundle({ seed: seed >>> 0, number, historyStartMs: start, historyEndMs }));
  }
  return bundles;
}
