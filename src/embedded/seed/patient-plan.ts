/**
 * Decides, before any resource is written, who a patient is and what happens to them:
 * demographics, problems, allergies and the schedule of visits. Builders then only render
 * this plan, which keeps the clinical story coherent (labs match problems, follow-ups follow
 * diagnoses) and makes patients visibly different from one another.
 */
import type { SeededRandom } from './prng.js';
import type { PatientProfile, PlannedChronicProblem, SmokingHistory } from './patient-context.js';
import { PRACTITIONERS, type DirectoryPractitioner } from './shared-directory.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from './time.js';
import { ACUTE_PROBLEMS, ALLERGIES, CHRONIC_PROBLEMS, HEALTH_CONCERNS, type AcuteProblem, type ChronicProblem } from './vocabulary-clinical.js';
import { FAMILY_NAMES, GIVEN_NAMES } from './vocabulary-people.js';

const YEAR_MS = 365.25 * DAY_MS;

/** Age bands at the end of the history, cycled by patient number so any population mixes ages. */
const AGE_BANDS: readonly (readonly [number, number])[] = [
  [28, 42],
  [59, 72],
  [43, 58],
  [73, 88],
  [19, 27],
];

const practitioner = (index: number): DirectoryPractitioner => PRACTITIONERS[index] as DirectoryPractitioner;

export function createPatientProfile(rng: SeededRandom, number: number, historyEndMs: number, visitCount: number): PatientProfile {
  // Alternate genders by number so even a small population has both.
  const gender = number % 2 === 1 ? 'female' : 'male';
  const band = AGE_BANDS[(number - 1) % AGE_BANDS.length] ?? [30, 60];
  const ageAtEnd = rng.int(band[0], band[1]);
  const birthMs = historyEndMs - ageAtEnd * YEAR_MS - rng.int(0, 364) * DAY_MS;
  const birthDayMs = birthMs - (birthMs % DAY_MS);

  const heightCm = gender === 'female' ? rng.decimal(152, 176) : rng.decimal(164, 192);
  const bmi = rng.decimal(19, 33);
  const baseWeightKg = Math.round(bmi * (heightCm / 100) ** 2 * 10) / 10;

  const eligible = CHRONIC_PROBLEMS.filter((p) => p.minAge <= ageAtEnd);
  const chronicCount = Math.max(1, 1 + (ageAtEnd > 45 ? 1 : 0) + (ageAtEnd > 65 ? 1 : 0) + rng.int(-1, 1));
  let chosen: ChronicProblem[] = rng.sample(eligible, chronicCount);
  const obesity = CHRONIC_PROBLEMS.find((p) => p.code.code === '162864005');
  if (bmi >= 30 && obesity && !chosen.includes(obesity)) chosen = [...chosen, obesity];

  // The first problem predates the record; later ones are diagnosed during it.
  const chronicProblems: PlannedChronicProblem[] = chosen.map((problem, i) => ({
    problem,
    diagnosedAtVisit: i === 0 || visitCount <= 1 ? 0 : rng.int(1, visitCount - 1),
    onsetYearsBeforeDiagnosis: i === 0 ? rng.int(0, 6) : 0,
  }));

  const smoking: SmokingHistory = rng.pick<SmokingHistory>(['never', 'never', 'never', 'former', 'former', 'daily', 'occasional']);

  return {
    number,
    gender,
    given: rng.chance(0.4) ? [rng.pick(GIVEN_NAMES[gender]), rng.pick(GIVEN_NAMES[gender])] : [rng.pick(GIVEN_NAMES[gender])],
    family: rng.pick(FAMILY_NAMES),
    birthMs: birthDayMs,
    heightCm,
    baseWeightKg,
    smoking,
    chronicProblems,
    acuteProblems: rng.sample(ACUTE_PROBLEMS, rng.int(2, 4)),
    healthConcerns: rng.sample(HEALTH_CONCERNS, rng.int(1, 2)),
    allergies: rng.sample(ALLERGIES, rng.int(1, 3)),
    primaryCare: practitioner((number - 1) % 2),
  };
}

export type VisitKind = 'checkUp' | 'followUp' | 'sick';

export interface PlannedVisit {
  readonly index: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly kind: VisitKind;
  readonly practitioner: DirectoryPractitioner;
  /** For sick visits: the illness presented. */
  readonly acute?: AcuteProblem;
  /** For follow-ups: the problem being followed (index into profile.chronicProblems). */
  readonly followUpOf?: number;
}

/** Visit start times every 1–3 months across the history, during clinic hours. */
export function planVisitTimes(rng: SeededRandom, historyStartMs: number, historyEndMs: number): number[] {
  const times: number[] = [];
  let day = historyStartMs + rng.int(0, 20) * DAY_MS;
  while (day < historyEndMs) {
    const clinicSlot = 8 * HOUR_MS + rng.int(0, 33) * 15 * MINUTE_MS; // 08:00–16:15
    times.push(day + clinicSlot);
    day += rng.int(30, 92) * DAY_MS;
  }
  return times;
}

export function planVisits(rng: SeededRandom, profile: PatientProfile, times: readonly number[]): PlannedVisit[] {
  const visits: PlannedVisit[] = [];
  let lastCheckUpMs = Number.NEGATIVE_INFINITY;
  times.forEach((startMs, index) => {
    const known = profile.chronicProblems.map((p, i) => ({ p, i })).filter(({ p }) => p.diagnosedAtVisit <= index);
    let kind: VisitKind;
    if (startMs - lastCheckUpMs > 330 * DAY_MS) kind = 'checkUp';
    else if (known.length > 0 && rng.chance(0.6)) kind = 'followUp';
    else kind = 'sick';
    if (kind === 'checkUp') lastCheckUpMs = startMs;
    visits.push(
      makeVisit(
        rng,
        profile,
        index,
        startMs,
        kind,
        known.map(({ i }) => i),
      ),
    );
  });
  // Every patient with more than one visit gets at least one illness that resolves.
  if (visits.length > 1 && !visits.some((v) => v.kind === 'sick')) {
    const target = visits[1] as PlannedVisit;
    visits[1] = makeVisit(rng, profile, 1, target.startMs, 'sick', []);
  }
  return visits;
}

function makeVisit(rng: SeededRandom, profile: PatientProfile, index: number, startMs: number, kind: VisitKind, known: number[]): PlannedVisit {
  const minutes = kind === 'checkUp' ? rng.int(30, 60) : rng.int(15, 40);
  // Mostly the patient's own physician; the other primary-care physician covers some visits.
  const practitionerForVisit = rng.chance(0.8) ? profile.primaryCare : practitioner(profile.primaryCare.id === 'pract-1' ? 1 : 0);
  const base = { index, startMs, endMs: startMs + minutes * MINUTE_MS, kind, practitioner: practitionerForVisit };
  if (kind === 'sick') return { ...base, acute: rng.pick(profile.acuteProblems) };
  if (kind === 'followUp') return { ...base, followUpOf: rng.pick(known) };
  return base;
}
