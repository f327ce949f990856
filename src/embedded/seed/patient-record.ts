/**
 * One patient's complete transaction bundle: plan the patient, render every visit, then add the
 * resources that summarise the whole history (care teams, care plans, goals, coverage).
 */
import type { Bundle } from '@medplum/fhirtypes';
import { buildCarePlan, buildCareTeam, buildSdohGoal } from './care-resources.js';
import { patientDisplayName, TransactionBundleBuilder, type PatientContext } from './patient-context.js';
import { createPatientProfile, planVisits, planVisitTimes } from './patient-plan.js';
import { buildAllergies, buildCoverage, buildPatient } from './patient-resources.js';
import { mixSeeds, SeededRandom, UuidSource } from './prng.js';
import { CLINIC, organizationRef, practitionerRef, PRACTITIONERS, type DirectoryPractitioner } from './shared-directory.js';
import { DAY_MS } from './time.js';
import { CARE_TEAM_ROLE, GENERIC_CARE_PLAN, SDOH_GOALS } from './vocabulary-clinical.js';
import { newRecordState, recordVisit, type RecordState } from './visit-record.js';

export interface PatientRecordOptions {
  readonly seed: number;
  /** 1-based patient number; with the seed it fully determines the record. */
  readonly number: number;
  readonly historyStartMs: number;
  readonly historyEndMs: number;
}

export function buildPatientRecordBundle(options: PatientRecordOptions): Bundle {
  // Each patient has its own stream, so patient N is the same whatever the population size.
  const rng = new SeededRandom(mixSeeds(options.seed, options.number));
  const bundle = new TransactionBundleBuilder(new UuidSource(rng, options.number & 0xffff));
  const times = planVisitTimes(rng, options.historyStartMs, options.historyEndMs);
  const profile = createPatientProfile(rng, options.number, options.historyEndMs, times.length);
  const visits = planVisits(rng, profile, times);

  const patientUrn = bundle.add(buildPatient(rng, profile, options.historyStartMs));
  const ctx: PatientContext = {
    rng,
    bundle,
    profile,
    patientRef: { reference: patientUrn, display: patientDisplayName(profile) },
    historyStartMs: options.historyStartMs,
    historyEndMs: options.historyEndMs,
  };
  bundle.add(buildCoverage(ctx));
  const firstVisitMs = visits[0]?.startMs ?? options.historyStartMs;
  for (const allergy of buildAllergies(ctx, firstVisitMs)) bundle.add(allergy);

  const state = newRecordState();
  for (const [i, visit] of visits.entries()) recordVisit(ctx, visit, state, i === visits.length - 1);

  addCareCoordination(ctx, state, firstVisitMs);
  return bundle.toBundle();
}

/**
 * Three care teams (the current one, an earlier inactive one and a proposed specialist team),
 * one care plan per recorded chronic problem plus one completed plan for a resolved illness, and
 * SDOH goals addressing the patient's health concerns.
 */
function addCareCoordination(ctx: PatientContext, state: RecordState, firstVisitMs: number): void {
  const { bundle, rng, profile } = ctx;
  const otherPrimary = PRACTITIONERS.find((p) => p.id !== profile.primaryCare.id && p.id !== 'pract-3') as DirectoryPractitioner;
  const consultant = PRACTITIONERS[2] as DirectoryPractitioner;
  const clinic = organizationRef(CLINIC);
  const firstProblem = [...state.chronic.values()][0];

  const activeTeamUrn = bundle.add(
    buildCareTeam(ctx, {
      status: 'active',
      name: `Primary care team for ${patientDisplayName(profile)}`,
      startMs: firstVisitMs,
      ...(firstProblem ? { reason: firstProblem.code } : {}),
      members: [
        { role: CARE_TEAM_ROLE.primaryCare, member: practitionerRef(profile.primaryCare) },
        { role: CARE_TEAM_ROLE.organization, member: clinic },
      ],
    }),
  );
  bundle.add(
    buildCareTeam(ctx, {
      status: 'inactive',
      name: 'Former primary care team',
      startMs: ctx.historyStartMs - rng.int(400, 1500) * DAY_MS,
      endMs: firstVisitMs,
      members: [
        { role: CARE_TEAM_ROLE.primaryCare, member: practitionerRef(otherPrimary) },
        { role: CARE_TEAM_ROLE.organization, member: clinic },
      ],
    }),
  );
  bundle.add(
    buildCareTeam(ctx, {
      status: 'proposed',
      name: 'Proposed behavioral health team',
      startMs: ctx.historyEndMs - rng.int(10, 60) * DAY_MS,
      ...(firstProblem ? { reason: firstProblem.code } : {}),
      members: [
        { role: CARE_TEAM_ROLE.professional, member: practitionerRef(consultant) },
        { role: CARE_TEAM_ROLE.organization, member: clinic },
      ],
    }),
  );

  const firstConcern = state.healthConcerns[0];
  const goalUrns = rng
    .sample(SDOH_GOALS, rng.int(1, 3))
    .map((def) => bundle.add(buildSdohGoal(ctx, def, firstConcern?.recordedMs ?? firstVisitMs, firstConcern?.urn)));

  for (const planned of profile.chronicProblems) {
    const condition = state.chronic.get(planned.problem.code.code);
    if (!condition) continue;
    bundle.add(
      buildCarePlan(ctx, {
        plan: planned.problem.carePlan,
        addresses: { urn: condition.urn, display: condition.code.display },
        activities: [`Monitor ${condition.code.display.toLowerCase()}`, 'Patient education', 'Follow-up visits as scheduled'],
        startMs: condition.recordedMs,
        encounterUrn: condition.encounterUrn,
        careTeamUrn: activeTeamUrn,
        goalUrns,
      }),
    );
  }
  const resolved = state.acute.find((a) => a.abatementMs !== undefined);
  if (resolved?.abatementMs !== undefined) {
    bundle.add(
      buildCarePlan(ctx, {
        plan: GENERIC_CARE_PLAN,
        addresses: { urn: resolved.urn, display: resolved.code.display },
        activities: ['Rest and fluids', 'Symptomatic relief'],
        startMs: resolved.recordedMs,
        endMs: resolved.abatementMs,
        encounterUrn: resolved.encounterUrn,
      }),
    );
  }
}
