/**
 * Clinical code tables: problems, visit types, procedures, allergies, vaccines, care plans,
 * referrals and social-determinants goals. Real codes from SNOMED CT, LOINC, CVX and HL7
 * terminology, so the facade's code filters can be exercised with values a client would send.
 */
import { code, loinc, snomed, SYSTEM, type Code } from './terminology.js';

/** A long-running problem; `minAge` keeps the mix plausible (no osteoarthritis at 25). */
export interface ChronicProblem {
  readonly code: Code;
  readonly minAge: number;
  /** Care plan category that manages this problem (SNOMED). */
  readonly carePlan: Code;
  /** Specialty a referral goes to when this problem is followed up. */
  readonly referral: Code;
}

/** Plan for problems without a specific plan type, and for short illnesses once resolved. */
export const GENERIC_CARE_PLAN = snomed('734163000', 'Care plan');
const carePlanGeneric = GENERIC_CARE_PLAN;

export const CHRONIC_PROBLEMS: readonly ChronicProblem[] = [
  {
    code: snomed('59621000', 'Essential hypertension'),
    minAge: 30,
    carePlan: snomed('443402002', 'Lifestyle education regarding hypertension'),
    referral: snomed('183519002', 'Referral to cardiology service'),
  },
  {
    code: snomed('44054006', 'Diabetes mellitus type 2'),
    minAge: 30,
    carePlan: snomed('698360004', 'Diabetes self management plan'),
    referral: snomed('3457005', 'Referral to endocrinology'),
  },
  {
    code: snomed('15777000', 'Prediabetes'),
    minAge: 20,
    carePlan: snomed('698360004', 'Diabetes self management plan'),
    referral: snomed('3457005', 'Referral to nutrition counseling'),
  },
  {
    code: snomed('55822004', 'Hyperlipidemia'),
    minAge: 30,
    carePlan: snomed('736285004', 'Hyperlipidemia clinical management plan'),
    referral: snomed('183519002', 'Referral to cardiology service'),
  },
  {
    code: snomed('195967001', 'Asthma'),
    minAge: 0,
    carePlan: snomed('699728000', 'Asthma self management'),
    referral: snomed('3457005', 'Referral to pulmonology'),
  },
  { code: snomed('35489007', 'Depressive disorder'), minAge: 16, carePlan: carePlanGeneric, referral: snomed('183524004', 'Referral to psychiatry service') },
  { code: snomed('197480006', 'Anxiety disorder'), minAge: 16, carePlan: carePlanGeneric, referral: snomed('183524004', 'Referral to psychiatry service') },
  {
    code: snomed('239873007', 'Osteoarthritis of knee'),
    minAge: 50,
    carePlan: snomed('773513001', 'Physiotherapy care plan'),
    referral: snomed('3457005', 'Referral to orthopedics'),
  },
  {
    code: snomed('162864005', 'Body mass index 30+ - obesity'),
    minAge: 18,
    carePlan: snomed('718361005', 'Weight management program'),
    referral: snomed('3457005', 'Referral to nutrition counseling'),
  },
  { code: snomed('40930008', 'Hypothyroidism'), minAge: 25, carePlan: carePlanGeneric, referral: snomed('3457005', 'Referral to endocrinology') },
  { code: snomed('431855005', 'Chronic kidney disease stage 1'), minAge: 45, carePlan: carePlanGeneric, referral: snomed('3457005', 'Referral to nephrology') },
];

/** A short illness seen at a sick visit; it resolves (abatementDateTime) a few days later. */
export interface AcuteProblem {
  readonly code: Code;
  readonly resolvesInDays: readonly [number, number];
  readonly procedure?: Code;
}

export const ACUTE_PROBLEMS: readonly AcuteProblem[] = [
  { code: snomed('444814009', 'Viral sinusitis'), resolvesInDays: [7, 21] },
  { code: snomed('195662009', 'Acute viral pharyngitis'), resolvesInDays: [5, 12], procedure: snomed('117015009', 'Throat culture') },
  { code: snomed('10509002', 'Acute bronchitis'), resolvesInDays: [10, 28] },
  { code: snomed('68566005', 'Urinary tract infectious disease'), resolvesInDays: [5, 10] },
  { code: snomed('43878008', 'Streptococcal sore throat'), resolvesInDays: [7, 10], procedure: snomed('117015009', 'Throat culture') },
  { code: snomed('44465007', 'Sprain of ankle'), resolvesInDays: [14, 42] },
  { code: snomed('65363002', 'Otitis media'), resolvesInDays: [7, 14] },
];

/** Social-determinants problems, recorded with the US Core health-concern category. */
export const HEALTH_CONCERNS: readonly Code[] = [
  snomed('73595000', 'Stress'),
  snomed('422650009', 'Social isolation'),
  snomed('105531004', 'Housing unsatisfactory'),
  snomed('73438004', 'Unemployed'),
];

export const ENCOUNTER_TYPE = {
  checkUp: snomed('185349003', 'Encounter for check up'),
  generalExam: snomed('162673000', 'General examination of patient'),
  symptom: snomed('185345009', 'Encounter for symptom'),
  followUp: snomed('390906007', 'Follow-up encounter'),
  problem: snomed('185347001', 'Encounter for problem'),
} as const;

/** Reason for a wellness visit: ICD-10-CM, since SNOMED has no neat "routine adult exam" finding. */
export const ROUTINE_EXAM_REASON = code(SYSTEM.icd10cm, 'Z00.00', 'Encounter for general adult medical examination without abnormal findings');

/** Procedures done at routine visits. */
export const ROUTINE_PROCEDURES: readonly Code[] = [
  snomed('430193006', 'Medication reconciliation'),
  snomed('710824005', 'Assessment of health and social care needs'),
  snomed('171207006', 'Depression screening'),
  snomed('428191000124101', 'Documentation of current medications'),
  snomed('454711000124102', 'Depression screening using Patient Health Questionnaire Two-Item score'),
];

/** Screening procedures by age; they appear at wellness visits only. */
export const SCREENING_PROCEDURES: readonly { readonly code: Code; readonly minAge: number; readonly gender?: 'female' | 'male' }[] = [
  { code: snomed('73761001', 'Colonoscopy'), minAge: 45 },
  { code: snomed('71651007', 'Mammography'), minAge: 40, gender: 'female' },
  { code: snomed('312681000', 'Bone density scan'), minAge: 65, gender: 'female' },
];

export interface AllergyDef {
  readonly code: Code;
  readonly category: 'food' | 'medication' | 'environment';
  readonly reaction: Code;
}

export const ALLERGIES: readonly AllergyDef[] = [
  { code: snomed('91936005', 'Allergy to penicillin'), category: 'medication', reaction: snomed('247472004', 'Wheal') },
  { code: snomed('300913006', 'Shellfish allergy'), category: 'food', reaction: snomed('39579001', 'Anaphylaxis') },
  { code: snomed('91935009', 'Allergy to peanuts'), category: 'food', reaction: snomed('247472004', 'Wheal') },
  { code: snomed('232347008', 'Dander (animal) allergy'), category: 'environment', reaction: snomed('21719001', 'Allergic rhinitis') },
  { code: snomed('418689008', 'Allergy to grass pollen'), category: 'environment', reaction: snomed('21719001', 'Allergic rhinitis') },
  { code: snomed('419474003', 'Allergy to mould'), category: 'environment', reaction: snomed('49727002', 'Cough') },
  { code: snomed('300916003', 'Latex allergy'), category: 'environment', reaction: snomed('271807003', 'Eruption of skin') },
];

export const VACCINE = {
  influenza: code(SYSTEM.cvx, '140', 'Influenza, seasonal, injectable, preservative free'),
  td: code(SYSTEM.cvx, '113', 'Td (adult) preservative free'),
  tdap: code(SYSTEM.cvx, '115', 'Tdap'),
  covid: code(SYSTEM.cvx, '208', 'SARS-COV-2 (COVID-19) vaccine, mRNA, spike protein, LNP, preservative free, 30 mcg/0.3mL dose'),
  pneumococcal: code(SYSTEM.cvx, '133', 'Pneumococcal conjugate PCV 13'),
  pneumococcalPolysaccharide: code(SYSTEM.cvx, '33', 'pneumococcal polysaccharide vaccine, 23 valent'),
  zoster: code(SYSTEM.cvx, '187', 'zoster vaccine recombinant'),
  hepB: code(SYSTEM.cvx, '43', 'Hep B, adult'),
} as const;

/** Why a vaccine was not given (v3 ActReason), for Immunization.statusReason. */
export const VACCINE_NOT_DONE_REASONS: readonly { readonly code: Code; readonly text: string }[] = [
  { code: code(SYSTEM.actReason, 'PATOBJ', 'patient objection'), text: 'Patient declined the vaccine' },
  { code: code(SYSTEM.actReason, 'OSTOCK', 'product out of stock'), text: 'Vaccine out of stock at the clinic' },
  { code: code(SYSTEM.actReason, 'MEDPREC', 'medical precaution'), text: 'Deferred: acute febrile illness' },
];

export const CARE_TEAM_ROLE = {
  patient: snomed('116153009', 'Patient'),
  primaryCare: snomed('446050000', 'Primary care physician'),
  professional: snomed('223366009', 'Healthcare professional'),
  organization: snomed('224891009', 'Healthcare services'),
} as const;

/** Category for referral orders. */
export const REFERRAL_CATEGORY = snomed('3457005', 'Patient referral');
/** Category for laboratory orders. */
export const LAB_ORDER_CATEGORY = snomed('108252007', 'Laboratory procedure');

/**
 * A social-determinants goal: what the patient aims for and how it is measured. Only codes
 * taken from published SDOH examples are coded; the rest carry text, as real goals often do.
 */
export interface SdohGoalDef {
  readonly description: Code | string;
  readonly measure: Code;
  /** An answer to aim for; when absent, the target is a due date instead. */
  readonly detail?: Code;
}

export const SDOH_GOALS: readonly SdohGoalDef[] = [
  { description: snomed('1078229009', 'Food security'), measure: loinc('88124-3', 'Food insecurity risk [HVS]'), detail: loinc('LA19983-8', 'No risk') },
  { description: 'Secure stable housing within six months', measure: loinc('71802-3', 'Housing status') },
  {
    description: 'Arrange reliable transport to medical appointments',
    measure: loinc('93030-5', 'Has lack of transportation kept you from medical appointments, meetings, work, or from getting things needed for daily living'),
  },
  { description: 'Find part-time or full-time employment', measure: loinc('67875-5', 'Employment status current') },
  { description: 'Reduce day-to-day stress', measure: loinc('93038-8', 'Stress level') },
];
export const COVERAGE_PLANS: readonly { readonly name: string; readonly group: string; readonly plan: string; readonly type: Code }[] = [
  { name: 'Harbor Choice PPO', group: 'GRP-20471', plan: 'PLN-PPO-2', type: code(SYSTEM.actCode, 'PPO', 'preferred provider organization policy') },
  { name: 'Harbor Select HMO', group: 'GRP-31188', plan: 'PLN-HMO-1', type: code(SYSTEM.actCode, 'HMO', 'health maintenance organization policy') },
  { name: 'Harbor Medicare Advantage', group: 'GRP-65002', plan: 'PLN-MA-5', type: code(SYSTEM.actCode, 'MCPOL', 'managed care policy') },
];
