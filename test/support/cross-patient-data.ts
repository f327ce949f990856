/**
 * Records of patient B that point at patient A's records, added to the generated data, so that a
 * search for A's records brings B's along as included records unless they are filtered: a
 * Provenance about an Observation of each, B's Condition, ServiceRequest and note on A's Encounter,
 * and B's report based on A's order. Each carries a marker text that must never reach A.
 *
 * And Provenances about A's Observation alone that name someone else elsewhere in them (an agent,
 * on whose behalf, an entity, an extension): `x-prov-*` (see {@link PROVENANCES_ABOUT_A}).
 */
import type { Bundle, Resource } from '@medplum/fhirtypes';
import type { FhirResource } from '../../src/upstream/fhir-client.ts';

export const B_MARKER = 'B-SECRET';

/** Every match of a FHIR search on an upstream (all pages). */
export async function fhirSearch(baseUrl: string, type: string, query = ''): Promise<FhirResource[]> {
  const found: FhirResource[] = [];
  let url: string | undefined = `${baseUrl}/${type}?${query}${query ? '&' : ''}_count=1000`;
  while (url) {
    const bundle = (await (await fetch(url)).json()) as {
      entry?: { resource: FhirResource; search?: { mode?: string } }[];
      link?: { relation: string; url: string }[];
    };
    for (const entry of bundle.entry ?? []) if (entry.search?.mode !== 'include') found.push(entry.resource);
    url = bundle.link?.find((link) => link.relation === 'next')?.url;
  }
  return found;
}

/**
 * The Provenances about A's first Observation alone, by id, and whether A may be shown each: only
 * when every reference in it is A's Patient, a directory record, or a record of the same answer.
 */
export const PROVENANCES_ABOUT_A: Readonly<Record<string, 'kept' | 'dropped'>> = {
  'x-prov-own-agents': 'kept',
  'x-prov-b-agent': 'dropped',
  'x-prov-b-behalf': 'dropped',
  'x-prov-b-related-person': 'dropped',
  'x-prov-b-entity': 'dropped',
  'x-prov-b-extension': 'dropped',
  'x-prov-b-absolute': 'dropped',
  'x-prov-a-unlisted-entity': 'dropped',
  'x-prov-device': 'dropped',
  'x-prov-logical': 'dropped',
  'x-prov-contained': 'dropped',
};

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
  const [practitioner] = await fhirSearch(baseUrl, 'Practitioner');
  const [organization] = await fhirSearch(baseUrl, 'Organization');
  const subject = { reference: `Patient/${b}` };
  const concept = (what: string) => ({ coding: [{ system: 'urn:test', code: `${B_MARKER}-${what}` }], text: `${B_MARKER}-${what}` });
  const resources: Resource[] = [
    {
      resourceType: 'Provenance',
      id: 'x-mixed',
      target: [{ reference: aObservation }, { reference: bObservation }],
      recorded: '2024-01-01T00:00:00Z',
      agent: [{ who: { display: `${B_MARKER}-agent` } }],
    },
    { resourceType: 'Condition', id: 'x-b-condition', subject, encounter: { reference: aEncounter }, code: concept('condition') },
    {
      resourceType: 'ServiceRequest',
      id: 'x-b-request',
      status: 'active',
      intent: 'order',
      subject,
      encounter: { reference: aEncounter },
      code: concept('request'),
      reasonCode: [concept('reason')],
    },
    {
      resourceType: 'DocumentReference',
      id: 'x-b-note',
      status: 'current',
      subject,
      context: { encounter: [{ reference: aEncounter }] },
      author: [{ display: `${B_MARKER}-author` }],
      content: [{ attachment: { contentType: 'text/plain', data: btoa(`${B_MARKER}-note`) } }],
    },
    {
      resourceType: 'DiagnosticReport',
      id: 'x-b-report',
      status: 'final',
      subject,
      basedOn: [{ reference: aOrder }],
      code: concept('report'),
      conclusionCode: [concept('conclusion')],
      result: [{ reference: bObservation, display: `${B_MARKER}-result` }],
    },
    { resourceType: 'RelatedPerson', id: 'x-b-related', patient: subject, name: [{ text: `${B_MARKER}-parent` }] },
    { resourceType: 'Device', id: 'x-device', deviceName: [{ name: 'Riverbend EHR', type: 'user-friendly-name' }] },
    ...provenancesAboutA(
      aObservation,
      bObservation,
      aEncounter,
      `Patient/${a}`,
      subject.reference,
      `Practitioner/${practitioner!.id}`,
      `Organization/${organization!.id}`,
    ),
  ] as Resource[];
  return {
    resourceType: 'Bundle',
    type: 'transaction',
    entry: resources.map((resource) => ({ resource, request: { method: 'PUT', url: `${resource.resourceType}/${resource.id}` } })),
  };
}

/** The Provenances of {@link PROVENANCES_ABOUT_A}: about A's Observation, each naming someone in one more place. */
function provenancesAboutA(
  aObservation: string,
  bObservation: string,
  aEncounter: string,
  aPatient: string,
  bPatient: string,
  practitioner: string,
  organization: string,
): Resource[] {
  const about = (id: string, rest: Record<string, unknown>) =>
    ({ resourceType: 'Provenance', id, target: [{ reference: aObservation }], recorded: '2024-02-01T00:00:00Z', ...rest }) as unknown as Resource;
  const author = { who: { reference: practitioner }, onBehalfOf: { reference: organization } };
  const marked = (reference: string) => ({ reference, display: `${B_MARKER}-named` });
  return [
    // A's own Patient, directory records and the Observation itself: nothing of anyone else.
    about('x-prov-own-agents', { agent: [author, { who: { reference: aPatient } }], entity: [{ role: 'source', what: { reference: aObservation } }] }),
    about('x-prov-b-agent', { agent: [author, { who: marked(bPatient) }] }),
    about('x-prov-b-behalf', { agent: [{ who: { reference: practitioner }, onBehalfOf: marked(bPatient) }] }),
    about('x-prov-b-related-person', { agent: [author, { who: marked('RelatedPerson/x-b-related') }] }),
    about('x-prov-b-entity', { agent: [author], entity: [{ role: 'source', what: marked(bObservation) }] }),
    about('x-prov-b-extension', { agent: [author], extension: [{ url: 'urn:test:about', valueReference: marked(bPatient) }] }),
    about('x-prov-b-absolute', { agent: [{ who: { reference: `http://elsewhere.example/fhir/${bPatient}` } }] }),
    // A's own Encounter, but not a record of the answer: whose it is cannot be told from the reference.
    about('x-prov-a-unlisted-entity', { agent: [author], entity: [{ role: 'source', what: { reference: aEncounter } }] }),
    // A Device may be a patient's (Device.patient): not directory data.
    about('x-prov-device', { agent: [author, { who: { reference: 'Device/x-device' } }] }),
    // A logical reference (identifier only) and a contained record name someone the service cannot tell.
    about('x-prov-logical', { agent: [author, { who: { identifier: { system: 'urn:test:mrn', value: `${B_MARKER}-mrn` } } }] }),
    about('x-prov-contained', {
      contained: [{ resourceType: 'Patient', id: 'p', name: [{ text: `${B_MARKER}-contained` }] }],
      agent: [author, { who: { reference: '#p' } }],
    }),
  ];
}

/** The patient a record belongs to, by the plain FHIR elements (written apart from the service's own rule). */
export function ownerOf(resource: FhirResource): string | undefined {
  if (resource.resourceType === 'Patient') return resource.id;
  const owner = (resource.beneficiary ?? resource.subject ?? resource.patient) as { reference?: string } | undefined;
  const match = /^Patient\/(.+)$/.exec(owner?.reference ?? '');
  return match?.[1];
}
