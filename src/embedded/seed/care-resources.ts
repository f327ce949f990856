/** Care coordination resources: Immunization, CarePlan, CareTeam and social-determinants Goal. */
import type { CarePlan, CareTeam, CareTeamParticipant, Goal, Immunization } from '@medplum/fhirtypes';
import { date, dateTime, type PatientContext } from './patient-context.js';
import type { PlannedVisit } from './patient-plan.js';
import { locationRef, MAIN_CLINIC_LOCATION, practitionerRef } from './shared-directory.js';
import { coding, concept, plainConcept, PROFILE, SYSTEM, type Code } from './terminology.js';
import { DAY_MS, MINUTE_MS } from './time.js';
import type { SdohGoalDef } from './vocabulary-clinical.js';

export interface NotDoneReason {
  readonly code: Code;
  readonly text: string;
}

/** A vaccination given at a visit, or — with `notDone` — offered and not given, with the reason. */
export function buildImmunization(ctx: PatientContext, visit: PlannedVisit, encounterUrn: string, vaccine: Code, notDone?: NotDoneReason): Immunization {
  const immunization: Immunization = {
    resourceType: 'Immunization',
    meta: { profile: [PROFILE.immunization] },
    status: notDone ? 'not-done' : 'completed',
    vaccineCode: concept(vaccine),
    patient: ctx.patientRef,
    encounter: { reference: encounterUrn },
    occurrenceDateTime: dateTime(visit.startMs + 25 * MINUTE_MS),
    primarySource: true,
    location: locationRef(MAIN_CLINIC_LOCATION),
  };
  if (notDone) {
    immunization.statusReason = { coding: [coding(notDone.code)], text: notDone.text };
  } else {
    immunization.lotNumber = `LOT${ctx.rng.digits(6)}`;
    immunization.performer = [{ actor: practitionerRef(visit.practitioner) }];
  }
  return immunization;
}

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface CarePlanSpec {
  readonly plan: Code;
  readonly addresses: { readonly urn: string; readonly display: string };
  readonly activities: readonly string[];
  readonly startMs: number;
  /** A finished plan (e.g. for an illness that resolved) is 'completed' with a period end. */
  readonly endMs?: number;
  readonly encounterUrn: string;
  readonly careTeamUrn?: string;
  readonly goalUrns?: readonly string[];
}

export function buildCarePlan(ctx: PatientContext, spec: CarePlanSpec): CarePlan {
  const items = spec.activities.map((a) => `<li>${escapeXml(a)}</li>`).join('');
  const carePlan: CarePlan = {
    resourceType: 'CarePlan',
    meta: { profile: [PROFILE.carePlan] },
    text: {
      status: 'generated',
      div: `<div xmlns="http://www.w3.org/1999/xhtml">Care Plan for ${escapeXml(spec.plan.display)}.<br/>Activities: <ul>${items}</ul><br/>Care plan is meant to treat ${escapeXml(spec.addresses.display)}.</div>`,
    },
    status: spec.endMs === undefined ? 'active' : 'completed',
    intent: 'plan',
    category: [plainConcept(SYSTEM.carePlanCategory, 'assess-plan'), concept(spec.plan)],
    title: spec.plan.display,
    subject: ctx.patientRef,
    encounter: { reference: spec.encounterUrn },
    period: spec.endMs === undefined ? { start: dateTime(spec.startMs) } : { start: dateTime(spec.startMs), end: dateTime(spec.endMs) },
    addresses: [{ reference: spec.addresses.urn, display: spec.addresses.display }],
    activity: spec.activities.map((a) => ({ detail: { status: spec.endMs === undefined ? 'in-progress' : 'completed', description: a } })),
  };
  if (spec.careTeamUrn) carePlan.careTeam = [{ reference: spec.careTeamUrn }];
  if (spec.goalUrns && spec.goalUrns.length > 0) carePlan.goal = spec.goalUrns.map((reference) => ({ reference }));
  return carePlan;
}

export interface CareTeamMember {
  readonly role: Code;
  readonly member: NonNullable<CareTeamParticipant['member']>;
}

export interface CareTeamSpec {
  readonly status: 'active' | 'proposed' | 'inactive';
  readonly name: string;
  readonly startMs: number;
  readonly endMs?: number;
  readonly reason?: Code;
  readonly members: readonly CareTeamMember[];
}

export function buildCareTeam(ctx: PatientContext, spec: CareTeamSpec): CareTeam {
  const careTeam: CareTeam = {
    resourceType: 'CareTeam',
    meta: { profile: [PROFILE.careTeam] },
    status: spec.status,
    name: spec.name,
    subject: ctx.patientRef,
    period: spec.endMs === undefined ? { start: dateTime(spec.startMs) } : { start: dateTime(spec.startMs), end: dateTime(spec.endMs) },
    participant: spec.members.map((m) => ({ role: [concept(m.role)], member: { ...m.member } })),
  };
  if (spec.reason) careTeam.reasonCode = [concept(spec.reason)];
  return careTeam;
}

/** A social-determinants goal; `addressesUrn` links it to the health concern it answers. */
export function buildSdohGoal(ctx: PatientContext, def: SdohGoalDef, startMs: number, addressesUrn?: string): Goal {
  const description = typeof def.description === 'string' ? { text: def.description } : concept(def.description);
  const target = def.detail
    ? { measure: concept(def.measure), detailCodeableConcept: concept(def.detail) }
    : { measure: concept(def.measure), dueDate: date(startMs + ctx.rng.int(90, 270) * DAY_MS) };
  const goal: Goal = {
    resourceType: 'Goal',
    meta: { profile: [PROFILE.goal] },
    lifecycleStatus: 'active',
    achievementStatus: concept({ system: 'http://terminology.hl7.org/CodeSystem/goal-achievement', code: 'in-progress', display: 'In Progress' }),
    category: [{ coding: [{ system: SYSTEM.usCoreCategory, code: 'sdoh', display: 'SDOH' }] }],
    description,
    subject: ctx.patientRef,
    startDate: date(startMs),
    target: [target],
    expressedBy: ctx.patientRef,
  };
  if (addressesUrn) goal.addresses = [{ reference: addressesUrn }];
  return goal;
}
