/**
 * Observation-side code tables: vital signs, lab panels (LOINC + UCUM), screening instruments,
 * smoking status, specimen vocabulary and clinical-note types.
 */
import { code, loinc, snomed, SYSTEM, type Code } from './terminology.js';

/** A measured quantity: LOINC code plus UCUM unit (`unit` is the human label, `ucum` the code). */
export interface QuantityKind {
  readonly code: Code;
  readonly unit: string;
  readonly ucum: string;
}

const quantity = (codeValue: string, display: string, unit: string, ucum: string = unit): QuantityKind => ({
  code: loinc(codeValue, display),
  unit,
  ucum,
});

const BASE = 'http://hl7.org/fhir/StructureDefinition/';

export const VITAL = {
  height: { ...quantity('8302-2', 'Body height', 'cm'), profile: `${BASE}bodyheight` },
  weight: { ...quantity('29463-7', 'Body weight', 'kg'), profile: `${BASE}bodyweight` },
  bmi: { ...quantity('39156-5', 'Body mass index (BMI) [Ratio]', 'kg/m2'), profile: `${BASE}bmi` },
  heartRate: { ...quantity('8867-4', 'Heart rate', '/min'), profile: `${BASE}heartrate` },
  respiratoryRate: { ...quantity('9279-1', 'Respiratory rate', '/min'), profile: `${BASE}resprate` },
  temperature: { ...quantity('8310-5', 'Body temperature', 'Cel'), profile: `${BASE}bodytemp` },
  oxygenSaturation: { ...quantity('59408-5', 'Oxygen saturation in Arterial blood by Pulse oximetry', '%'), profile: `${BASE}oxygensat` },
} as const;

export const BLOOD_PRESSURE = {
  panel: loinc('85354-9', 'Blood pressure panel with all children optional'),
  systolic: quantity('8480-6', 'Systolic blood pressure', 'mm[Hg]'),
  diastolic: quantity('8462-4', 'Diastolic blood pressure', 'mm[Hg]'),
  profile: `${BASE}bp`,
} as const;

/** One lab analyte with its reference range; values are drawn a little wider than the range. */
export interface Analyte extends QuantityKind {
  readonly low: number;
  readonly high: number;
  readonly decimals: number;
}

const analyte = (codeValue: string, display: string, unit: string, low: number, high: number, decimals = 1): Analyte => ({
  ...quantity(codeValue, display, unit),
  low,
  high,
  decimals,
});

export type PanelKey = 'cbc' | 'bmp' | 'lipid' | 'a1c' | 'tsh';

export interface LabPanel {
  readonly code: Code;
  readonly specimen: Code;
  readonly analytes: readonly Analyte[];
}

const VENOUS_BLOOD = snomed('122555007', 'Venous blood specimen');
const SERUM = snomed('119364003', 'Serum specimen');

export const LAB_PANELS: Readonly<Record<PanelKey, LabPanel>> = {
  cbc: {
    code: loinc('58410-2', 'CBC panel - Blood by Automated count'),
    specimen: VENOUS_BLOOD,
    analytes: [
      analyte('6690-2', 'Leukocytes [#/volume] in Blood by Automated count', '10*3/uL', 4.5, 11),
      analyte('789-8', 'Erythrocytes [#/volume] in Blood by Automated count', '10*6/uL', 4.2, 5.9, 2),
      analyte('718-7', 'Hemoglobin [Mass/volume] in Blood', 'g/dL', 12, 17.5),
      analyte('4544-3', 'Hematocrit [Volume Fraction] of Blood by Automated count', '%', 36, 50),
      analyte('787-2', 'MCV [Entitic volume] by Automated count', 'fL', 80, 100),
      analyte('777-3', 'Platelets [#/volume] in Blood by Automated count', '10*3/uL', 150, 400, 0),
    ],
  },
  bmp: {
    code: loinc('51990-0', 'Basic metabolic panel - Blood'),
    specimen: SERUM,
    analytes: [
      analyte('2339-0', 'Glucose [Mass/volume] in Blood', 'mg/dL', 70, 99, 0),
      analyte('6299-2', 'Urea nitrogen [Mass/volume] in Blood', 'mg/dL', 7, 20, 0),
      analyte('38483-4', 'Creatinine [Mass/volume] in Blood', 'mg/dL', 0.6, 1.3, 2),
      analyte('49765-1', 'Calcium [Mass/volume] in Blood', 'mg/dL', 8.5, 10.2),
      analyte('2947-0', 'Sodium [Moles/volume] in Blood', 'mmol/L', 136, 145, 0),
      analyte('6298-4', 'Potassium [Moles/volume] in Blood', 'mmol/L', 3.5, 5.1),
      analyte('2069-3', 'Chloride [Moles/volume] in Blood', 'mmol/L', 98, 107, 0),
      analyte('20565-8', 'Carbon dioxide, total [Moles/volume] in Blood', 'mmol/L', 22, 29, 0),
    ],
  },
  lipid: {
    code: loinc('57698-3', 'Lipid panel with direct LDL - Serum or Plasma'),
    specimen: SERUM,
    analytes: [
      analyte('2093-3', 'Cholesterol [Mass/volume] in Serum or Plasma', 'mg/dL', 125, 200, 0),
      analyte('2571-8', 'Triglyceride [Mass/volume] in Serum or Plasma', 'mg/dL', 40, 150, 0),
      analyte('2085-9', 'Cholesterol in HDL [Mass/volume] in Serum or Plasma', 'mg/dL', 40, 80, 0),
      analyte('18262-6', 'Cholesterol in LDL [Mass/volume] in Serum or Plasma by Direct assay', 'mg/dL', 50, 130, 0),
    ],
  },
  a1c: {
    code: loinc('4548-4', 'Hemoglobin A1c/Hemoglobin.total in Blood'),
    specimen: VENOUS_BLOOD,
    analytes: [analyte('4548-4', 'Hemoglobin A1c/Hemoglobin.total in Blood', '%', 4, 5.6)],
  },
  tsh: {
    code: loinc('3016-3', 'Thyrotropin [Units/volume] in Serum or Plasma'),
    specimen: SERUM,
    analytes: [analyte('3016-3', 'Thyrotropin [Units/volume] in Serum or Plasma', 'm[IU]/L', 0.4, 4, 2)],
  },
};

/**
 * How a chronic problem (keyed by SNOMED code) shows in the labs: which panel its follow-up
 * visits order, and the range some analytes are drawn from instead of the normal one.
 */
export const PROBLEM_LABS: Readonly<Record<string, { panel: PanelKey; shifts: Readonly<Record<string, readonly [number, number]>> }>> = {
  '44054006': { panel: 'a1c', shifts: { '4548-4': [6.8, 9.4], '2339-0': [130, 220] } },
  '15777000': { panel: 'a1c', shifts: { '4548-4': [5.7, 6.4], '2339-0': [100, 125] } },
  '55822004': { panel: 'lipid', shifts: { '2093-3': [210, 280], '18262-6': [140, 190], '2571-8': [160, 290] } },
  '40930008': { panel: 'tsh', shifts: { '3016-3': [4.6, 9.5] } },
  '431855005': { panel: 'bmp', shifts: { '38483-4': [1.2, 1.7] } },
  '162864005': { panel: 'lipid', shifts: { '2571-8': [150, 240] } },
};

export const INTERPRETATION = {
  high: code(SYSTEM.observationInterpretation, 'H', 'High'),
  low: code(SYSTEM.observationInterpretation, 'L', 'Low'),
  normal: code(SYSTEM.observationInterpretation, 'N', 'Normal'),
} as const;

export const REPORT_CONCLUSION = {
  normal: snomed('17621005', 'Normal'),
  abnormal: snomed('263654008', 'Abnormal'),
} as const;

export const SPECIMEN = {
  container: snomed('434711009', 'Specimen container'),
  collectionMethod: snomed('28520004', 'Venipuncture'),
  bodySites: [snomed('368208006', 'Left upper arm structure'), snomed('368209003', 'Right upper arm structure')],
} as const;

export const SMOKING_STATUS = {
  code: loinc('72166-2', 'Tobacco smoking status'),
  never: snomed('266919005', 'Never smoked tobacco'),
  former: snomed('8517006', 'Ex-smoker'),
  daily: snomed('449868002', 'Smokes tobacco daily'),
  occasional: snomed('428041000124106', 'Occasional tobacco smoker'),
} as const;

/** Screening instruments. Scores go in valueInteger; PHQ-2 items carry coded LOINC answers. */
export const SURVEY = {
  phq2: { code: loinc('55757-9', 'Patient Health Questionnaire 2 item (PHQ-2) [Reported]'), maxScore: 6 },
  phq9: { code: loinc('44249-1', 'PHQ-9 quick depression assessment panel [Reported.PHQ]'), maxScore: 27 },
  gad7: { code: loinc('69737-5', 'Generalized anxiety disorder 7 item (GAD-7)'), maxScore: 21 },
  phq2Items: [
    loinc('44250-9', 'Little interest or pleasure in doing things in last 2 weeks'),
    loinc('44255-8', 'Feeling down, depressed, or hopeless in last 2 weeks'),
  ],
  /** LOINC answer list LL358-3, indexed by item score 0–3. */
  frequencyAnswers: [
    loinc('LA6568-5', 'Not at all'),
    loinc('LA6569-3', 'Several days'),
    loinc('LA6570-1', 'More than half the days'),
    loinc('LA6571-9', 'Nearly every day'),
  ],
} as const;

export const NOTE_TYPE = {
  consult: loinc('11488-4', 'Consult note'),
  historyAndPhysical: loinc('34117-2', 'History and physical note'),
  progress: loinc('11506-3', 'Progress note'),
} as const;

export const CLINICAL_NOTE_CATEGORY = code(SYSTEM.usCoreDocumentCategory, 'clinical-note', 'Clinical Note');

/** Non-lab reports with a narrative or a rendered document (US Core note report categories). */
export const IMAGING_AND_CARDIOLOGY_REPORTS: readonly { readonly category: Code; readonly code: Code }[] = [
  { category: loinc('LP29684-5', 'Radiology'), code: loinc('36643-5', 'XR Chest 2 Views') },
  { category: loinc('LP29708-2', 'Cardiology'), code: loinc('11524-6', 'EKG study') },
  { category: loinc('LP29684-5', 'Radiology'), code: loinc('24627-2', 'CT Chest') },
];
