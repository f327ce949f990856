/**
 * Renders one planned visit into resources: the Encounter, conditions diagnosed there,
 * observations, labs, procedures, referrals, vaccinations, notes and the Provenance for the
 * visit's observations. State that spans visits (known conditions, vaccines already given,
 * awkward cases already placed) lives in RecordState.
 */
import type { Encounter } from '@medplum/fhirtypes';
import { addVisitNotes, addImagingReport } from './note-resources.js';
import { buildCondition, buildEncounter, buildProcedure, buildReferral, type ConditionSpec } from './encounter-resources.js';
import { addLabWorkup } from './lab-resources.js';
import { addPhq2, addScoredSurvey, addSmokingStatus, addVitalSigns, buildObservationProvenance } from './observation-resources.js';
import { buildImmunization } from './care-resources.js';
import type { PatientContext } from './patient-context.js';
import type { PlannedVisit } from './patient-plan.js';
import type { Code } from './terminology.js';
import { DAY_MS, MINUTE_MS, monthOf, yearOf, yearsBetween } from './time.js';
import {
  ROUTINE_EXAM_REASON,
  ROUTINE_PROCEDURES,
  SCREENING_PROCEDURES,
  VACCINE,
  VACCINE_NOT_DONE_REASONS,
  type AcuteProblem,
  type ChronicProblem,
} from './vocabulary-clinical.js';
import { PROBLEM_LABS, SURVEY, type PanelKey } from './vocabulary-observations.js';

export interface RecordedCondition {
  readonly urn: string;
  readonly code: Code;
  readonly encounterUrn: string;
  readonly recordedMs: number;
  readonly abatementMs?: number;
}

export interface RecordState {
  /** Chronic problems and health concerns by SNOMED code, once recorded. */
  readonly chronic: Map<string, RecordedCondition>;
  readonly healthConcerns: RecordedCondition[];
  readonly acute: (RecordedCondition & { readonly problem: AcuteProblem })[];
  readonly given: Set<string>;
  readonly fluSeasons: Set<number>;
  notDoneImmunization: boolean;
  incompleteReport: boolean;
}

export const newRecordState = (): RecordState => ({
  chronic: new Map(),
  healthConcerns: [],
  acute: [],
  given: new Set(),
  fluSeasons: new Set(),
  notDoneImmunization: false,
  incompleteReport: false,
});

const DEPRESSION = '35489007';
const ANXIETY = '197480006';
const HYPERTENSION = '59621000';
const HYPERLIPIDEMIA = '55822004';

export function recordVisit(ctx: PatientContext, visit: PlannedVisit, state: RecordState, isLastVisit: boolean): void {
  const { bundle, rng, profile } = ctx;
  const encounterUrn = bundle.reserve();
  const age = yearsBetween(profile.birthMs, visit.startMs);
  const followed = visit.followUpOf === undefined ? undefined : profile.chronicProblems[visit.followUpOf]?.problem;
  const reason = visit.acute?.code ?? followed?.code ?? ROUTINE_EXAM_REASON;

  const encounter: Encounter = buildEncounter(ctx, visit, reason);
  bundle.add(encounter, encounterUrn);
  const diagnosed = recordConditions(ctx, visit, encounterUrn, state);
  const followedCondition = followed ? state.chronic.get(followed.code.code) : undefined;
  if (followedCondition && !diagnosed.includes(followedCondition.urn)) diagnosed.push(followedCondition.urn);
  if (diagnosed.length > 0) encounter.diagnosis = diagnosed.map((reference, i) => ({ condition: { reference }, rank: i + 1 }));

  const observationUrns = recordObservations(ctx, visit, encounterUrn, age, followed, state);
  recordProcedures(ctx, visit, encounterUrn, age, state);

  // Referral to the specialty that manages a problem, when newly found or on some follow-ups.
  const referFor = followed ?? profile.chronicProblems.find((p) => p.diagnosedAtVisit === visit.index && visit.index > 0)?.problem;
  const referCondition = referFor ? state.chronic.get(referFor.code.code) : undefined;
  if (referFor && referCondition && rng.chance(0.3)) {
    bundle.add(buildReferral(ctx, visit, encounterUrn, referFor.referral, referFor.code, referCondition.urn));
  }

  recordImmunizations(ctx, visit, encounterUrn, age, state, isLastVisit);

  const fullyDocumented = visit.index < 3 || rng.chance(0.35);
  if (fullyDocumented || rng.chance(0.6)) {
    const problems = [...state.chronic.values()].map((c) => c.code.display);
    const plan = visit.acute
      ? 'Supportive care; return if symptoms worsen.'
      : followed
        ? `Continue management of ${followed.code.display.toLowerCase()}.`
        : 'Routine follow-up in one year.';
    addVisitNotes(
      ctx,
      visit,
      encounterUrn,
      { reason: reason.display, problems, allergies: profile.allergies.map((a) => a.code.display), plan },
      fullyDocumented,
    );
  }
  // The first visit after intake gets the incomplete report stub (see addImagingReport).
  if (!state.incompleteReport && visit.index >= 1) {
    state.incompleteReport = true;
    addImagingReport(ctx, visit, encounterUrn, true);
  } else if (rng.chance(0.08)) {
    addImagingReport(ctx, visit, encounterUrn, false);
  }

  bundle.add(buildObservationProvenance(ctx, visit, observationUrns));
}

/** Conditions first recorded at this visit; returns their fullUrls for Encounter.diagnosis. */
function recordConditions(ctx: PatientContext, visit: PlannedVisit, encounterUrn: string, state: RecordState): string[] {
  const { bundle, rng, profile } = ctx;
  const addCondition = (spec: ConditionSpec): RecordedCondition => {
    const urn = bundle.add(buildCondition(ctx, spec));
    return { urn, code: spec.code, encounterUrn, recordedMs: spec.recordedMs, ...(spec.abatementMs === undefined ? {} : { abatementMs: spec.abatementMs }) };
  };
  const diagnosed: string[] = [];
  for (const planned of profile.chronicProblems.filter((p) => p.diagnosedAtVisit === visit.index)) {
    const onsetMs = visit.startMs - planned.onsetYearsBeforeDiagnosis * 365 * DAY_MS - rng.int(0, 60) * DAY_MS;
    const recorded = addCondition({ code: planned.problem.code, category: 'problem-list-item', encounterUrn, onsetMs, recordedMs: visit.startMs });
    state.chronic.set(planned.problem.code.code, recorded);
    diagnosed.push(recorded.urn);
  }
  if (visit.index === 0) {
    for (const concern of profile.healthConcerns) {
      state.healthConcerns.push(
        addCondition({
          code: concern,
          category: 'health-concern',
          encounterUrn,
          onsetMs: visit.startMs - rng.int(30, 700) * DAY_MS,
          recordedMs: visit.startMs,
        }),
      );
    }
  }
  if (visit.acute) {
    // Illnesses still running at the end of the history stay active, without abatement.
    const abatementMs = visit.startMs + rng.int(...visit.acute.resolvesInDays) * DAY_MS;
    const resolved = abatementMs < ctx.historyEndMs;
    const onsetMs = visit.startMs - rng.int(1, 4) * DAY_MS;
    const recorded = addCondition({
      code: visit.acute.code,
      category: 'encounter-diagnosis',
      encounterUrn,
      onsetMs,
      recordedMs: visit.startMs,
      ...(resolved ? { abatementMs } : {}),
    });
    state.acute.push({ ...recorded, problem: visit.acute });
    diagnosed.push(recorded.urn);
  }
  return diagnosed;
}

/** Vitals always; smoking and screening on a schedule; labs by visit purpose. Returns fullUrls. */
function recordObservations(
  ctx: PatientContext,
  visit: PlannedVisit,
  encounterUrn: string,
  age: number,
  followed: ChronicProblem | undefined,
  state: RecordState,
): string[] {
  const { rng } = ctx;
  const known = (snomedCode: string): boolean => state.chronic.has(snomedCode);
  const urns = addVitalSigns(ctx, visit, encounterUrn, {
    hypertensive: known(HYPERTENSION),
    febrile: visit.acute !== undefined && rng.chance(0.5),
    yearsIntoHistory: (visit.startMs - ctx.historyStartMs) / (365 * DAY_MS),
  });
  if (visit.kind === 'checkUp' || rng.chance(0.25)) urns.push(addSmokingStatus(ctx, visit, encounterUrn));
  if (visit.kind === 'checkUp') {
    const phq2 = addPhq2(ctx, visit, encounterUrn, known(DEPRESSION));
    urns.push(...phq2.urns);
    if (phq2.score >= 3) urns.push(addScoredSurvey(ctx, visit, encounterUrn, SURVEY.phq9, true));
  }
  if (followed?.code.code === DEPRESSION) urns.push(addScoredSurvey(ctx, visit, encounterUrn, SURVEY.phq9, true));
  if (followed?.code.code === ANXIETY || (visit.kind !== 'sick' && rng.chance(0.2))) {
    urns.push(addScoredSurvey(ctx, visit, encounterUrn, SURVEY.gad7, known(ANXIETY)));
  }

  const panels: PanelKey[] = [];
  if (visit.kind === 'checkUp') panels.push('cbc', 'bmp', ...(age >= 35 || known(HYPERLIPIDEMIA) ? (['lipid'] as const) : []));
  const problemLabs = followed ? PROBLEM_LABS[followed.code.code] : undefined;
  if (problemLabs && !panels.includes(problemLabs.panel) && rng.chance(0.8)) panels.push(problemLabs.panel);
  if (visit.kind === 'sick' && rng.chance(0.25)) panels.push('cbc');
  // Known problems shift their analytes in every panel, not only in the one their follow-up orders.
  const shifts: Record<string, readonly [number, number]> = {};
  for (const problemCode of state.chronic.keys()) Object.assign(shifts, PROBLEM_LABS[problemCode]?.shifts);
  for (const panel of panels) urns.push(...addLabWorkup(ctx, visit, encounterUrn, panel, shifts).observationUrns);
  return urns;
}

function recordProcedures(ctx: PatientContext, visit: PlannedVisit, encounterUrn: string, age: number, state: RecordState): void {
  const { rng, bundle, profile } = ctx;
  const procedures: Code[] = [];
  if (visit.kind === 'checkUp') {
    procedures.push(...rng.sample(ROUTINE_PROCEDURES, rng.int(1, 2)));
    for (const screening of SCREENING_PROCEDURES) {
      if (age < screening.minAge || (screening.gender && screening.gender !== profile.gender)) continue;
      const key = `screening:${screening.code.code}`;
      if (!state.given.has(key) && rng.chance(0.4)) {
        state.given.add(key);
        procedures.push(screening.code);
      }
    }
  } else if (visit.acute?.procedure) {
    procedures.push(visit.acute.procedure);
  } else if (visit.kind === 'followUp' && rng.chance(0.5)) {
    procedures.push(ROUTINE_PROCEDURES[0] as Code);
  }
  let at = visit.startMs + 10 * MINUTE_MS;
  for (const procedure of procedures) {
    const minutes = rng.int(5, 25);
    bundle.add(buildProcedure(ctx, visit, encounterUrn, procedure, at, minutes));
    at += minutes * MINUTE_MS;
  }
}

/**
 * Vaccines by season and age. The patient's second flu season is declined (not-done with a
 * reason); a history too short for that declines a vaccine at the last visit instead, so every
 * patient has the legacy API's 'not-done' case.
 */
function recordImmunizations(ctx: PatientContext, visit: PlannedVisit, encounterUrn: string, age: number, state: RecordState, isLastVisit: boolean): void {
  const { rng, bundle } = ctx;
  const give = (vaccine: Code, key: string): void => {
    state.given.add(key);
    bundle.add(buildImmunization(ctx, visit, encounterUrn, vaccine));
  };
  const month = monthOf(visit.startMs);
  const year = yearOf(visit.startMs);
  const season = month >= 9 ? year : month <= 3 ? year - 1 : undefined;
  if (season !== undefined && !state.fluSeasons.has(season)) {
    state.fluSeasons.add(season);
    if (state.fluSeasons.size === 2 && !state.notDoneImmunization) {
      state.notDoneImmunization = true;
      bundle.add(buildImmunization(ctx, visit, encounterUrn, VACCINE.influenza, rng.pick(VACCINE_NOT_DONE_REASONS)));
    } else {
      bundle.add(buildImmunization(ctx, visit, encounterUrn, VACCINE.influenza));
    }
  }
  if (year >= 2021 && !state.given.has(`covid:${year}`) && rng.chance(0.4)) give(VACCINE.covid, `covid:${year}`);
  if (isLastVisit && !state.notDoneImmunization) {
    state.notDoneImmunization = true;
    bundle.add(buildImmunization(ctx, visit, encounterUrn, year >= 2021 ? VACCINE.covid : VACCINE.tdap, rng.pick(VACCINE_NOT_DONE_REASONS)));
  }
  if (visit.kind !== 'checkUp') return;
  if (!state.given.has('td') && rng.chance(0.3)) give(rng.chance(0.5) ? VACCINE.tdap : VACCINE.td, 'td');
  if (age >= 65 && !state.given.has('pneumo')) give(rng.chance(0.5) ? VACCINE.pneumococcal : VACCINE.pneumococcalPolysaccharide, 'pneumo');
  if (age >= 50 && !state.given.has('zoster') && rng.chance(0.5)) give(VACCINE.zoster, 'zoster');
  if (age < 60 && !state.given.has('hepB') && rng.chance(0.15)) give(VACCINE.hepB, 'hepB');
}
