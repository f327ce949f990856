/** The visit itself and what it decides: Encounter, Condition, Procedure and referral orders. */
import type { CodeableConcept, Condition, Encounter, Procedure, Reference, ServiceRequest } from '@medplum/fhirtypes';
import { dateTime, type PatientContext } from './patient-context.js';
import type { PlannedVisit } from './patient-plan.js';
import { CLINIC, locationRef, MAIN_CLINIC_LOCATION, organizationRef, practitionerRef } from './shared-directory.js';
import { code, coding, concept, PROFILE, SYSTEM, type Code } from './terminology.js';
import { DAY_MS, MINUTE_MS } from './time.js';
import { ENCOUNTER_TYPE, REFERRAL_CATEGORY } from './vocabulary-clinical.js';

const VISIT_TYPE: Readonly<Record<PlannedVisit['kind'], Code>> = {
  checkUp: ENCOUNTER_TYPE.checkUp,
  followUp: ENCOUNTER_TYPE.followUp,
  sick: ENCOUNTER_TYPE.symptom,
};

export function buildEncounter(ctx: PatientContext, visit: PlannedVisit, reason: Code): Encounter {
  const period = { start: dateTime(visit.startMs), end: dateTime(visit.endMs) };
  return {
    resourceType: 'Encounter',
    meta: { profile: [PROFILE.encounter] },
    identifier: [
      {
        use: 'official',
        type: concept(code(SYSTEM.identifierType, 'VN', 'Visit number')),
        system: SYSTEM.encounterId,
        value: `V${String(ctx.profile.number).padStart(6, '0')}-${String(visit.index + 1).padStart(4, '0')}`,
      },
    ],
    status: 'finished',
    class: { system: SYSTEM.actCode, code: 'AMB', display: 'ambulatory' },
    type: [concept(VISIT_TYPE[visit.kind])],
    subject: ctx.patientRef,
    participant: [
      {
        type: [{ coding: [{ system: SYSTEM.participationType, code: 'PPRF', display: 'primary performer' }], text: 'primary performer' }],
        period: { ...period },
        individual: practitionerRef(visit.practitioner),
      },
    ],
    period,
    reasonCode: [concept(reason)],
    hospitalization: {
      dischargeDisposition: { coding: [{ system: SYSTEM.dischargeDisposition, code: 'home', display: 'Home' }], text: 'Home' },
    },
    location: [{ location: locationRef(MAIN_CLINIC_LOCATION) }],
    serviceProvider: organizationRef(CLINIC),
  };
}

export type ConditionCategory = 'problem-list-item' | 'encounter-diagnosis' | 'health-concern';

function conditionCategory(category: ConditionCategory): CodeableConcept {
  switch (category) {
    case 'problem-list-item':
      return concept(code(SYSTEM.conditionCategory, 'problem-list-item', 'Problem List Item'));
    case 'encounter-diagnosis':
      return concept(code(SYSTEM.conditionCategory, 'encounter-diagnosis', 'Encounter Diagnosis'));
    case 'health-concern':
      return concept(code(SYSTEM.usCoreConditionCategory, 'health-concern', 'Health Concern'));
  }
}

export interface ConditionSpec {
  readonly code: Code;
  readonly category: ConditionCategory;
  readonly encounterUrn: string;
  readonly onsetMs: number;
  readonly recordedMs: number;
  /** Set for resolved conditions: the legacy API shows abatementDateTime only on these. */
  readonly abatementMs?: number;
}

export function buildCondition(ctx: PatientContext, spec: ConditionSpec): Condition {
  const resolved = spec.abatementMs !== undefined;
  const condition: Condition = {
    resourceType: 'Condition',
    meta: { profile: [PROFILE.condition] },
    clinicalStatus: concept(code(SYSTEM.conditionClinical, resolved ? 'resolved' : 'active', resolved ? 'Resolved' : 'Active')),
    verificationStatus: concept(code(SYSTEM.conditionVerification, 'confirmed', 'Confirmed')),
    category: [conditionCategory(spec.category)],
    code: concept(spec.code),
    subject: ctx.patientRef,
    encounter: { reference: spec.encounterUrn },
    onsetDateTime: dateTime(spec.onsetMs),
    recordedDate: dateTime(spec.recordedMs),
  };
  if (spec.abatementMs !== undefined) condition.abatementDateTime = dateTime(spec.abatementMs);
  return condition;
}

export function buildProcedure(ctx: PatientContext, visit: PlannedVisit, encounterUrn: string, procedure: Code, startMs: number, minutes: number): Procedure {
  return {
    resourceType: 'Procedure',
    meta: { profile: [PROFILE.procedure] },
    status: 'completed',
    code: concept(procedure),
    subject: ctx.patientRef,
    encounter: { reference: encounterUrn },
    performedPeriod: { start: dateTime(startMs), end: dateTime(startMs + minutes * MINUTE_MS) },
    performer: [{ actor: practitionerRef(visit.practitioner) }],
    location: locationRef(MAIN_CLINIC_LOCATION),
  };
}

/**
 * A referral to a specialty for a known problem. Referrals from the last few months are still
 * open ('active'); older ones were acted on ('completed').
 */
export function buildReferral(
  ctx: PatientContext,
  visit: PlannedVisit,
  encounterUrn: string,
  referral: Code,
  reason: Code,
  conditionUrn: string,
): ServiceRequest {
  const open = ctx.historyEndMs - visit.startMs < 120 * DAY_MS;
  const reasonReference: Reference<Condition> = { reference: conditionUrn, display: reason.display };
  return {
    resourceType: 'ServiceRequest',
    meta: { profile: [PROFILE.serviceRequest] },
    identifier: [{ system: SYSTEM.orderId, value: `REF-${ctx.profile.number}-${visit.index + 1}` }],
    status: open ? 'active' : 'completed',
    intent: 'order',
    category: [concept(REFERRAL_CATEGORY)],
    code: { coding: [coding(referral)], text: referral.display },
    subject: ctx.patientRef,
    encounter: { reference: encounterUrn },
    occurrenceDateTime: dateTime(visit.startMs + 14 * DAY_MS),
    authoredOn: dateTime(visit.endMs),
    requester: practitionerRef(visit.practitioner),
    reasonCode: [{ coding: [coding(reason)], text: reason.display }],
    reasonReference: [reasonReference],
    note: [{ text: `Please evaluate and advise on management of ${reason.display.toLowerCase()}.` }],
  };
}
