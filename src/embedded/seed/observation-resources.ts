/**
 * Point-of-care observations (vital signs, smoking status, screening questionnaires) and the
 * Provenance that records who authored and transmitted them.
 */
import type { Observation, Provenance, Quantity } from '@medplum/fhirtypes';
import { dateTime, instant, type PatientContext } from './patient-context.js';
import type { PlannedVisit } from './patient-plan.js';
import { CLINIC, organizationRef, practitionerRef } from './shared-directory.js';
import { code, coding, concept, PROFILE, SYSTEM, type Code } from './terminology.js';
import { MINUTE_MS } from './time.js';
import { BLOOD_PRESSURE, SMOKING_STATUS, SURVEY, VITAL, type QuantityKind } from './vocabulary-observations.js';

export type ObservationCategory = 'vital-signs' | 'laboratory' | 'social-history' | 'survey';

const CATEGORY_DISPLAY: Readonly<Record<ObservationCategory, string>> = {
  'vital-signs': 'Vital Signs',
  laboratory: 'Laboratory',
  'social-history': 'Social History',
  survey: 'Survey',
};

export function observationShell(
  ctx: PatientContext,
  encounterUrn: string,
  category: ObservationCategory,
  observed: Code,
  effectiveMs: number,
  profiles: readonly string[],
): Observation {
  return {
    resourceType: 'Observation',
    meta: { profile: [...profiles] },
    status: 'final',
    category: [concept(code(SYSTEM.observationCategory, category, CATEGORY_DISPLAY[category]))],
    code: concept(observed),
    subject: ctx.patientRef,
    encounter: { reference: encounterUrn },
    effectiveDateTime: dateTime(effectiveMs),
    // Issued a little after the measurement, with milliseconds, as EHRs stamp it.
    issued: instant(effectiveMs + 5 * MINUTE_MS + ctx.rng.int(0, 59_999)),
  };
}

export function quantity(kind: QuantityKind, value: number): Quantity {
  return { value, unit: kind.unit, system: SYSTEM.ucum, code: kind.ucum };
}

export interface VisitClinicalState {
  readonly hypertensive: boolean;
  readonly febrile: boolean;
  readonly yearsIntoHistory: number;
}

/** Eight vital signs, the set a nurse records at intake; returns the entries' fullUrls. */
export function addVitalSigns(ctx: PatientContext, visit: PlannedVisit, encounterUrn: string, state: VisitClinicalState): string[] {
  const { rng, profile, bundle } = ctx;
  const at = visit.startMs + 5 * MINUTE_MS;
  const vital = (kind: (typeof VITAL)[keyof typeof VITAL], value: number): string => {
    const obs = observationShell(ctx, encounterUrn, 'vital-signs', kind.code, at, [PROFILE.vitalSigns, kind.profile]);
    obs.valueQuantity = quantity(kind, value);
    return bundle.add(obs);
  };
  const weight = Math.round((profile.baseWeightKg + state.yearsIntoHistory * 0.6 + rng.decimal(-1.5, 1.5)) * 10) / 10;
  const bmi = Math.round((weight / (profile.heightCm / 100) ** 2) * 10) / 10;

  const bp = observationShell(ctx, encounterUrn, 'vital-signs', BLOOD_PRESSURE.panel, at, [PROFILE.vitalSigns, BLOOD_PRESSURE.profile]);
  bp.component = [
    {
      code: concept(BLOOD_PRESSURE.systolic.code),
      valueQuantity: quantity(BLOOD_PRESSURE.systolic, state.hypertensive ? rng.int(132, 158) : rng.int(104, 128)),
    },
    { code: concept(BLOOD_PRESSURE.diastolic.code), valueQuantity: quantity(BLOOD_PRESSURE.diastolic, state.hypertensive ? rng.int(84, 98) : rng.int(64, 82)) },
  ];

  return [
    vital(VITAL.height, Math.round((profile.heightCm + rng.decimal(-0.4, 0.4)) * 10) / 10),
    vital(VITAL.weight, weight),
    vital(VITAL.bmi, bmi),
    bundle.add(bp),
    vital(VITAL.heartRate, rng.int(58, 90) + (state.febrile ? 12 : 0)),
    vital(VITAL.respiratoryRate, rng.int(12, 18) + (state.febrile ? 2 : 0)),
    vital(VITAL.temperature, state.febrile ? rng.decimal(37.6, 38.8) : rng.decimal(36.4, 37.2)),
    vital(VITAL.oxygenSaturation, rng.int(95, 100)),
  ];
}

const SMOKING_ANSWER = {
  never: SMOKING_STATUS.never,
  former: SMOKING_STATUS.former,
  daily: SMOKING_STATUS.daily,
  occasional: SMOKING_STATUS.occasional,
} as const;

export function addSmokingStatus(ctx: PatientContext, visit: PlannedVisit, encounterUrn: string): string {
  const obs = observationShell(ctx, encounterUrn, 'social-history', SMOKING_STATUS.code, visit.startMs + 10 * MINUTE_MS, [PROFILE.smokingStatus]);
  obs.valueCodeableConcept = concept(SMOKING_ANSWER[ctx.profile.smoking]);
  return ctx.bundle.add(obs);
}

/**
 * PHQ-2: two item observations with coded LOINC answers, and the panel observation holding the
 * total score (valueInteger) with hasMember links to the items. Returns all three fullUrls.
 */
export function addPhq2(ctx: PatientContext, visit: PlannedVisit, encounterUrn: string, depressed: boolean): { urns: string[]; score: number } {
  const at = visit.startMs + 12 * MINUTE_MS;
  const urns: string[] = [];
  let score = 0;
  for (const item of SURVEY.phq2Items) {
    const itemScore = depressed ? ctx.rng.int(1, 3) : ctx.rng.pick([0, 0, 0, 1]);
    score += itemScore;
    const obs = observationShell(ctx, encounterUrn, 'survey', item, at, [PROFILE.screeningAssessment]);
    const answer = SURVEY.frequencyAnswers[itemScore] ?? SURVEY.frequencyAnswers[0];
    obs.valueCodeableConcept = { coding: [coding(answer)], text: answer.display };
    urns.push(ctx.bundle.add(obs));
  }
  const panel = observationShell(ctx, encounterUrn, 'survey', SURVEY.phq2.code, at, [PROFILE.screeningAssessment]);
  panel.valueInteger = score;
  panel.hasMember = urns.map((reference) => ({ reference }));
  return { urns: [...urns, ctx.bundle.add(panel)], score };
}

/** A scored instrument (PHQ-9, GAD-7) recorded as one observation with the total in valueInteger. */
export function addScoredSurvey(
  ctx: PatientContext,
  visit: PlannedVisit,
  encounterUrn: string,
  instrument: { code: Code; maxScore: number },
  elevated: boolean,
): string {
  const obs = observationShell(ctx, encounterUrn, 'survey', instrument.code, visit.startMs + 15 * MINUTE_MS, [PROFILE.screeningAssessment]);
  const max = instrument.maxScore;
  obs.valueInteger = elevated ? ctx.rng.int(Math.round(max * 0.35), Math.round(max * 0.7)) : ctx.rng.int(0, Math.round(max * 0.2));
  return ctx.bundle.add(obs);
}

/**
 * One Provenance per visit, targeting the visit's observations: the physician authored them on
 * behalf of the clinic, and the clinic's interface engine transmitted them. The transmitter is
 * named by display only, a shape the legacy API shows alongside `who.reference`.
 */
export function buildObservationProvenance(ctx: PatientContext, visit: PlannedVisit, targets: readonly string[]): Provenance {
  const onBehalfOf = organizationRef(CLINIC);
  return {
    resourceType: 'Provenance',
    meta: { profile: [PROFILE.provenance] },
    target: targets.map((reference) => ({ reference })),
    recorded: instant(visit.endMs + 2 * MINUTE_MS + ctx.rng.int(0, 59_999)),
    agent: [
      {
        id: 'author',
        type: { coding: [{ system: SYSTEM.provenanceParticipantType, code: 'author', display: 'Author' }] },
        who: practitionerRef(visit.practitioner),
        onBehalfOf: { ...onBehalfOf },
      },
      {
        id: 'transmitter',
        type: { coding: [{ system: SYSTEM.provenanceParticipantType, code: 'transmitter', display: 'Transmitter' }] },
        who: { display: 'Riverbend EHR interface engine' },
        onBehalfOf: { ...onBehalfOf },
      },
    ],
  };
}
