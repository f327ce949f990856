/** Patient-level resources that are not tied to one visit: Patient, Coverage, AllergyIntolerance. */
import type { AllergyIntolerance, Coverage, Patient } from '@medplum/fhirtypes';
import type { SeededRandom } from './prng.js';
import { dateTime, date, type PatientContext, type PatientProfile } from './patient-context.js';
import { organizationRef, PAYER } from './shared-directory.js';
import { code, coding, concept, plainConcept, PROFILE, SYSTEM } from './terminology.js';
import { DAY_MS, yearsBetween } from './time.js';
import { COVERAGE_PLANS } from './vocabulary-clinical.js';
import { COUNTRY, FICTIONAL_PHONE_PREFIX, MARITAL_STATUSES, STATE, STREET_NAMES, TOWNS } from './vocabulary-people.js';

/** Medical record number: stable per patient number, so ids in logs are easy to trace back. */
export const medicalRecordNumber = (profile: PatientProfile): string => `MRN-${String(profile.number).padStart(6, '0')}`;

export function buildPatient(rng: SeededRandom, profile: PatientProfile, historyStartMs: number): Patient {
  const town = rng.pick(TOWNS);
  const marital = rng.pick(MARITAL_STATUSES);
  const email = `${(profile.given[0] ?? 'patient').toLowerCase()}.${profile.family.toLowerCase()}${profile.number}@mail.example.com`;
  return {
    resourceType: 'Patient',
    meta: { profile: [PROFILE.patient] },
    extension: [{ url: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-birthsex', valueCode: profile.gender === 'female' ? 'F' : 'M' }],
    identifier: [
      {
        use: 'usual',
        type: concept(code(SYSTEM.identifierType, 'MR', 'Medical Record Number')),
        system: SYSTEM.mrn,
        value: medicalRecordNumber(profile),
      },
    ],
    active: true,
    name: [{ use: 'official', family: profile.family, given: [...profile.given], prefix: [profile.gender === 'female' ? 'Ms.' : 'Mr.'] }],
    telecom: [
      { system: 'phone', value: `508-${FICTIONAL_PHONE_PREFIX}${rng.digits(2)}`, use: 'home' },
      { system: 'email', value: email, use: 'home' },
    ],
    gender: profile.gender,
    birthDate: date(profile.birthMs),
    address: [
      {
        use: 'home',
        line: [`${rng.int(2, 980)} ${rng.pick(STREET_NAMES)}`],
        city: town.city,
        state: STATE,
        postalCode: town.postalCode,
        country: COUNTRY,
        period: { start: date(historyStartMs - rng.int(200, 4000) * DAY_MS) },
      },
    ],
    maritalStatus: concept(code(SYSTEM.maritalStatus, marital.code, marital.display)),
    communication: [{ language: concept(code('urn:ietf:bcp:47', 'en-US', 'English (United States)')), preferred: true }],
  };
}

export function buildCoverage(ctx: PatientContext): Coverage {
  const { rng, profile } = ctx;
  const ageAtEnd = yearsBetween(profile.birthMs, ctx.historyEndMs);
  const plan = ageAtEnd >= 65 ? (COVERAGE_PLANS[2] ?? rng.pick(COVERAGE_PLANS)) : rng.pick(COVERAGE_PLANS.slice(0, 2));
  const memberId = `HM${rng.digits(9)}`;
  return {
    resourceType: 'Coverage',
    meta: { profile: [PROFILE.coverage] },
    identifier: [{ type: concept(code(SYSTEM.identifierType, 'MB', 'Member Number')), system: SYSTEM.memberId, value: memberId }],
    status: 'active',
    type: concept(plan.type),
    subscriber: ctx.patientRef,
    subscriberId: memberId,
    beneficiary: ctx.patientRef,
    relationship: concept(code(SYSTEM.subscriberRelationship, 'self', 'Self')),
    period: { start: date(ctx.historyStartMs - rng.int(30, 900) * DAY_MS), end: date(ctx.historyEndMs + 365 * DAY_MS) },
    payor: [organizationRef(PAYER)],
    class: [
      { type: concept(code(SYSTEM.coverageClass, 'group', 'Group')), value: plan.group, name: `${plan.name} group` },
      { type: concept(code(SYSTEM.coverageClass, 'plan', 'Plan')), value: plan.plan, name: plan.name },
    ],
  };
}

/**
 * Allergies recorded early in the history. Most are confirmed; the first is left 'unconfirmed'
 * (patient-reported, never tested), the status the legacy examples show.
 */
export function buildAllergies(ctx: PatientContext, recordedAtMs: number): AllergyIntolerance[] {
  const { rng, profile } = ctx;
  return profile.allergies.map((allergy, i) => ({
    resourceType: 'AllergyIntolerance',
    meta: { profile: [PROFILE.allergy] },
    clinicalStatus: { coding: [{ system: SYSTEM.allergyClinical, code: 'active', display: 'Active' }] },
    verificationStatus: i === 0 ? plainConcept(SYSTEM.allergyVerification, 'unconfirmed') : plainConcept(SYSTEM.allergyVerification, 'confirmed'),
    type: 'allergy',
    category: [allergy.category],
    criticality: allergy.reaction.code === '39579001' ? 'high' : 'low',
    code: concept(allergy.code),
    patient: ctx.patientRef,
    onsetDateTime: dateTime(profile.birthMs + rng.int(2, 15) * 365 * DAY_MS),
    recordedDate: dateTime(recordedAtMs),
    reaction: [
      {
        manifestation: [{ coding: [coding(allergy.reaction)], text: allergy.reaction.display }],
        severity: allergy.reaction.code === '39579001' ? 'severe' : 'moderate',
      },
    ],
  }));
}
