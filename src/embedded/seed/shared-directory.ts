/**
 * The shared provider directory: organizations, locations and practitioners every patient
 * bundle points at. It is loaded first, as `PUT` entries with fixed ids, so patient bundles can
 * reference `Practitioner/pract-1` directly instead of duplicating the directory per patient.
 */
import type { Bundle, BundleEntry, Location, Organization, Practitioner, Reference } from '@medplum/fhirtypes';
import { concept, PROFILE, SYSTEM, code } from './terminology.js';
import { COUNTRY, FICTIONAL_PHONE_PREFIX, STATE } from './vocabulary-people.js';

export interface DirectoryPractitioner {
  readonly id: string;
  readonly given: string;
  readonly family: string;
  readonly gender: 'female' | 'male';
  readonly npi: string;
  readonly specialty: { readonly code: string; readonly display: string };
  readonly phoneSuffix: string;
  readonly since: string;
}

/** Luhn check digit over "80840" + the 9-digit base, as the NPI standard defines. */
function npi(base9: string): string {
  const digits = `80840${base9}`;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return `${base9}${(10 - (sum % 10)) % 10}`;
}

export const PRACTITIONERS: readonly DirectoryPractitioner[] = [
  {
    id: 'pract-1',
    given: 'Helen',
    family: 'Marsh',
    gender: 'female',
    npi: npi('192837465'),
    specialty: { code: '207Q00000X', display: 'Family Medicine' },
    phoneSuffix: '11',
    since: '2009-07-01',
  },
  {
    id: 'pract-2',
    given: 'Samuel',
    family: 'Adeyemi',
    gender: 'male',
    npi: npi('154326789'),
    specialty: { code: '207R00000X', display: 'Internal Medicine' },
    phoneSuffix: '12',
    since: '2014-09-15',
  },
  {
    id: 'pract-3',
    given: 'Ingrid',
    family: 'Solberg',
    gender: 'female',
    npi: npi('176543210'),
    specialty: { code: '2084P0800X', display: 'Psychiatry' },
    phoneSuffix: '13',
    since: '2018-03-01',
  },
];

const CLINIC_ADDRESS = { line: ['400 Riverbend Ave'], city: 'Worcester', state: STATE, postalCode: '01608', country: COUNTRY };
const PAYER_ADDRESS = { line: ['1 Harbor Plaza', 'Suite 900'], city: 'Quincy', state: STATE, postalCode: '02169', country: COUNTRY };

export const CLINIC = { id: 'org-1', name: 'Riverbend Community Health' } as const;
export const PAYER = { id: 'org-2', name: 'Harbor Mutual Health Plan' } as const;
export const MAIN_CLINIC_LOCATION = { id: 'loc-1', name: 'Riverbend Community Health - Main Clinic' } as const;
export const LAB_LOCATION = { id: 'loc-2', name: 'Riverbend Community Health - Laboratory' } as const;

export const practitionerDisplay = (p: DirectoryPractitioner): string => `Dr. ${p.given} ${p.family}`;

export function practitionerRef(p: DirectoryPractitioner): Reference<Practitioner> {
  return { reference: `Practitioner/${p.id}`, display: practitionerDisplay(p) };
}

export function organizationRef(org: { id: string; name: string }): Reference<Organization> {
  return { reference: `Organization/${org.id}`, display: org.name };
}

export function locationRef(loc: { id: string; name: string }): Reference<Location> {
  return { reference: `Location/${loc.id}`, display: loc.name };
}

function buildPractitioner(p: DirectoryPractitioner): Practitioner {
  return {
    resourceType: 'Practitioner',
    id: p.id,
    meta: { profile: [PROFILE.practitioner] },
    identifier: [{ system: SYSTEM.npi, value: p.npi }],
    active: true,
    name: [{ use: 'official', family: p.family, given: [p.given], prefix: ['Dr.'] }],
    telecom: [
      { system: 'phone', value: `508-${FICTIONAL_PHONE_PREFIX}${p.phoneSuffix}`, use: 'work' },
      { system: 'email', value: `${p.given.toLowerCase()}.${p.family.toLowerCase()}@riverbend.example.org`, use: 'work' },
    ],
    address: [{ use: 'work', ...CLINIC_ADDRESS, line: [...CLINIC_ADDRESS.line], period: { start: p.since } }],
    gender: p.gender,
    qualification: [{ code: concept(code(SYSTEM.nuccTaxonomy, p.specialty.code, p.specialty.display)) }],
  };
}

function buildOrganizations(): Organization[] {
  return [
    {
      resourceType: 'Organization',
      id: CLINIC.id,
      meta: { profile: [PROFILE.organization] },
      identifier: [{ system: SYSTEM.npi, value: npi('165432198') }],
      active: true,
      type: [concept(code(SYSTEM.organizationType, 'prov', 'Healthcare Provider'))],
      name: CLINIC.name,
      telecom: [{ system: 'phone', value: `508-${FICTIONAL_PHONE_PREFIX}00`, use: 'work' }],
      address: [{ ...CLINIC_ADDRESS, line: [...CLINIC_ADDRESS.line] }],
    },
    {
      resourceType: 'Organization',
      id: PAYER.id,
      meta: { profile: [PROFILE.organization] },
      identifier: [{ system: 'urn:oid:2.16.840.1.113883.19.5.6', value: 'HMHP-0042' }],
      active: true,
      type: [concept(code(SYSTEM.organizationType, 'pay', 'Payer'))],
      name: PAYER.name,
      telecom: [{ system: 'phone', value: `617-${FICTIONAL_PHONE_PREFIX}50`, use: 'work' }],
      address: [{ ...PAYER_ADDRESS, line: [...PAYER_ADDRESS.line] }],
    },
  ];
}

function buildLocations(): Location[] {
  return [MAIN_CLINIC_LOCATION, LAB_LOCATION].map((loc, i) => ({
    resourceType: 'Location',
    id: loc.id,
    meta: { profile: [PROFILE.location] },
    status: 'active',
    name: loc.name,
    telecom: [{ system: 'phone', value: `508-${FICTIONAL_PHONE_PREFIX}0${i + 1}`, use: 'work' }],
    address: { ...CLINIC_ADDRESS, line: [i === 0 ? (CLINIC_ADDRESS.line[0] ?? '') : '400 Riverbend Ave, Building B'] },
    managingOrganization: organizationRef(CLINIC),
  }));
}

/** No fullUrl: the id in request.url is the identity, and nothing refers to these as urn:uuid. */
function putEntry(resource: Organization | Location | Practitioner): BundleEntry {
  return {
    resource,
    request: { method: 'PUT', url: `${resource.resourceType}/${resource.id ?? ''}` },
  };
}

/** Directory bundle: organizations first so locations and practitioners can point at them. */
export function buildSharedDirectoryBundle(): Bundle {
  const resources: (Organization | Location | Practitioner)[] = [...buildOrganizations(), ...buildLocations(), ...PRACTITIONERS.map(buildPractitioner)];
  return { resourceType: 'Bundle', type: 'transaction', entry: resources.map(putEntry) };
}
