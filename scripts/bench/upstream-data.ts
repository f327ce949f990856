/**
 * The canned upstream's answers: searchsets of realistic DiagnosticReports from the generated
 * patients, as one FHIR server would send them for one patient.
 */
import { generateSyntheticBundles } from '../../src/embedded/seed/generate.ts';

/** Reports in the usual answer (~35 KB upstream, ~24 KB legacy) and in the large one (~128 KB legacy). */
const USUAL_REPORTS = 20;
const LARGE_REPORTS = 110;

/** A searchset of `count` DiagnosticReports of patient `patient`. */
function searchset(count: number, patient: string): string {
  const reports = generateSyntheticBundles({ patients: 3 })
    .flatMap((bundle) => bundle.entry ?? [])
    .map((entry) => entry.resource)
    .filter((resource) => resource?.resourceType === 'DiagnosticReport')
    .slice(0, count)
    .map((resource, index) => ({
      ...resource,
      id: String(index + 1),
      subject: { reference: `Patient/${patient}` },
      meta: { versionId: '1', lastUpdated: '2025-01-01T00:00:00Z' },
    }));
  return JSON.stringify({
    resourceType: 'Bundle',
    type: 'searchset',
    total: reports.length,
    entry: reports.map((resource) => ({ fullUrl: `http://upstream/fhir/DiagnosticReport/${resource.id}`, resource, search: { mode: 'match' } })),
  });
}

export const usualBundle = (patient: string) => searchset(USUAL_REPORTS, patient);
export const largeBundle = (patient: string) => searchset(LARGE_REPORTS, patient);
export const emptyBundle = JSON.stringify({ resourceType: 'Bundle', type: 'searchset', total: 0, entry: [] });
