/**
 * Records of patient B that point at patient A's records, added to the generated data, so that a
 * search for A's records brings B's along as included records unless they are filtered: a
 * Provenance about an Observation of each, B's Condition, ServiceRequest and note on A's Encounter,
 * and B's report based on A's order. Each carries a marker text that must never reach A.
 */
import type { Bundle, Resource } from '@medplum/fhirtypes';
import type { FhirResource } from '../../src/upstream/fhir-client.ts';

export const B_MARKER = 'B-SECRET';

/** Every match of a FHIR search on an upstream (all pages). */
export async function fhirSearch(baseUrl: string, type: string, query = ''): Promise<FhirResource[]> {
  const found: FhirResource[] = [];
  let url: string | undefined = `${baseUrl}/${type}?${query}${query ? '&' : ''}_count=1000`;
  while (url) {
    const bundle = (await (await fetch(url)).json()) as { entry?: { resource: FhirResource; search?: { mode?: string } }[]; link?: { relation: string; url: string }[] };
    for (const entry of bundle.entry ?? []) if (entry.search?.mode !== 'include') found.push(entry.resource);
    url = bundle.link?.find((link) => link.relation === 'next')?.url;
  }
  return found;
}

/** The cross-patient records, made against the records the upstream holds for patients `a` and `b`. */
export async function crossPatientBundle(baseUrl: string, a: string, b: string): Promise<Bundle> {
  const first = async (type: string, patient: string) => {
    const [found] = await fhirSearch(baseUrl, type, `patient=Patient/${patient}`);
    if (!found?.id) throw new Error(`no ${type} for patient ${patient}`);
    return `${type}/${found.id}`;
  };
  const aEncounter = await first('Encounter', a);
  const aOrder = await first('ServiceRequest', a);
  const aObservation = await first('Observation', a);
  const bObservation = await first('Observation', b);
  const subject = { reference: `Patient/${b}` };
  const concept = (what: string) => ({ coding: [{ system: 'urn:test', code: `${B_MARKER}-${what}` }], text: `${B_MARKER}-${what}` });
  const resources: Resource[] = [
    { resourceType: 'Provenance', id: 'x-mixed', target: [{ reference: aObservation }, { reference: bObservation }], recorded: '2024-01-01T00:00:00Z', agent: [{ who: { display: `${B_MARKER}-agent` } }] },
    { resourceType: 'Condition', id: 'x-b-condition', subject, encounter: { reference: aEncounter }, code: concept('condition') },
    { resourceType: 'ServiceRequest', id: 'x-b-request', status: 'active', intent: 'order', subject, encounter: { reference: aEncounter }, code: concept('request'), reasonCode: [concept('reason')] },
    {
      resourceType: 'DocumentReference', id: 'x-b-note', status: 'current', subject, context: { encounter: [{ reference: aEncounter }] },
      author: [{ display: `${B_MARKER}-author` }], content: [{ attachment: { contentType: 'text/plain', data: btoa(`${B_MARKER}-note`) } }],
    },
    { resourceType: 'DiagnosticReport', id: 'x-b-report', status: 'final', subject, basedOn: [{ reference: aOrder }], code: concept('report'), conclusionCode: [concept('conclusion')], result: [{ reference: bObservation, display: `${B_MARKER}-result` }] },
  ] as Resource[];
  return {
    resourceType: 'Bundle',
    type: 'transaction',
    entry: resources.map((resource) => ({ resource, request: { method: 'PUT', url: `${resource.resourceType}/${resource.id}` } })),
  };
}

/** The patient a record belongs to, by the plain FHIR elements (written apart from the service's own rule). */
export function ownerOf(resource: FhirResource): string | undefined {
  if (resource.resourceType === 'Patient') return resource.id;
  const owner = (resource.beneficiary ?? resource.subject ?? resource.patient) as { reference?: string } | undefined;
  const match = /^Patient\/(.+)$/.exec(owner?.reference ?? '');
  return match?.[1];
}
