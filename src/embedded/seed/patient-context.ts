/**
 * What every builder needs while writing one patient's bundle: the seeded stream, the bundle
 * being filled, the patient's profile and timestamp formatting.
 */
import type { Bundle, BundleEntry, Patient, Reference, Resource } from '@medplum/fhirtypes';
import type { SeededRandom, UuidSource } from './prng.js';
import type { DirectoryPractitioner } from './shared-directory.js';
import { formatDate, formatDateTime, formatInstant } from './time.js';
import type { AcuteProblem, AllergyDef, ChronicProblem } from './vocabulary-clinical.js';
import type { Code } from './terminology.js';

/** Collects POST entries whose fullUrl is a urn:uuid the server rewrites on load. */
export class TransactionBundleBuilder {
  private readonly entries: BundleEntry[] = [];

  constructor(private readonly uuids: UuidSource) {}

  /** A fresh `urn:uuid:` fullUrl, for resources that must be referenced before they are built. */
  reserve(): string {
    return `urn:uuid:${this.uuids.next()}`;
  }

  /** Adds a POST entry and returns its fullUrl (the reference other entries use). */
  add<T extends Resource>(resource: T, fullUrl: string = this.reserve()): string {
    this.entries.push({ fullUrl, resource, request: { method: 'POST', url: resource.resourceType } });
    return fullUrl;
  }

  get size(): number {
    return this.entries.length;
  }

  toBundle(): Bundle {
    return { resourceType: 'Bundle', type: 'transaction', entry: this.entries };
  }
}

export type SmokingHistory = 'never' | 'former' | 'daily' | 'occasional';

/** A chronic problem with the visit at which it is first recorded. */
export interface PlannedChronicProblem {
  readonly problem: ChronicProblem;
  readonly diagnosedAtVisit: number;
  /** Onset can predate the recorded history (a problem the patient arrives with). */
  readonly onsetYearsBeforeDiagnosis: number;
}

/** Demographics and the clinical story decided up-front for one patient. */
export interface PatientProfile {
  /** 1-based position in the generated population (stable for a given seed). */
  readonly number: number;
  readonly gender: 'female' | 'male';
  readonly given: readonly string[];
  readonly family: string;
  readonly birthMs: number;
  readonly heightCm: number;
  readonly baseWeightKg: number;
  readonly smoking: SmokingHistory;
  readonly chronicProblems: readonly PlannedChronicProblem[];
  readonly acuteProblems: readonly AcuteProblem[];
  readonly healthConcerns: readonly Code[];
  readonly allergies: readonly AllergyDef[];
  /** Usual primary-care physician; most visits are with them. */
  readonly primaryCare: DirectoryPractitioner;
}

export interface PatientContext {
  readonly rng: SeededRandom;
  readonly bundle: TransactionBundleBuilder;
  readonly profile: PatientProfile;
  /** urn:uuid reference to the Patient entry, with the display name. */
  readonly patientRef: Reference<Patient>;
  readonly historyStartMs: number;
  readonly historyEndMs: number;
}

export const patientDisplayName = (p: PatientProfile): string => `${p.given.join(' ')} ${p.family}`;

export const dateTime = formatDateTime;
export const instant = formatInstant;
export const date = (wallMs: number): string => formatDate(wallMs);

/** Base64 of ASCII text; btoa exists in Node 20 and in every web-style runtime. */
export const base64Text = (text: string): string => btoa(text);
