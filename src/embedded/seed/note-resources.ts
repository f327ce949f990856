/**
 * Clinical notes (DocumentReference with base64 text) and narrative DiagnosticReports:
 * history-and-physical reports carrying the note inline, imaging/cardiology reports carrying a
 * document URL, and the deliberately incomplete report with no effective[x] and no issued.
 */
import type { DiagnosticReport, DocumentReference } from '@medplum/fhirtypes';
import { base64Text, date, dateTime, instant, patientDisplayName, type PatientContext } from './patient-context.js';
import type { PlannedVisit } from './patient-plan.js';
import { CLINIC, organizationRef, practitionerDisplay, practitionerRef, PRACTITIONERS, type DirectoryPractitioner } from './shared-directory.js';
import { concept, PROFILE, type Code } from './terminology.js';
import { MINUTE_MS, yearsBetween } from './time.js';
import { CLINICAL_NOTE_CATEGORY, IMAGING_AND_CARDIOLOGY_REPORTS, NOTE_TYPE } from './vocabulary-observations.js';

/** What the visit was about, in words, for the generated note text. */
export interface NoteFacts {
  readonly reason: string;
  readonly problems: readonly string[];
  readonly allergies: readonly string[];
  readonly plan: string;
}

const CONSULTANT = PRACTITIONERS[2] as DirectoryPractitioner;

function noteText(ctx: PatientContext, visit: PlannedVisit, kind: Code, author: DirectoryPractitioner, facts: NoteFacts): string {
  const { profile } = ctx;
  const age = yearsBetween(profile.birthMs, visit.startMs);
  const who = `${patientDisplayName(profile)} is a ${age} year-old ${profile.gender}`;
  const problems = facts.problems.length > 0 ? facts.problems.join(', ') : 'none';
  const allergies = facts.allergies.length > 0 ? facts.allergies.join(', ') : 'No known allergies';
  const body: Record<string, string[]> = {
    [NOTE_TYPE.historyAndPhysical.code]: [
      `# Chief Complaint\n${facts.reason}.`,
      `# History of Present Illness\n${who} presenting for ${facts.reason.toLowerCase()}.`,
      `# Past Medical History\n${problems}.`,
      `# Allergies\n${allergies}.`,
      `# Physical Exam\nAlert and oriented. Heart regular rate and rhythm. Lungs clear to auscultation.`,
    ],
    [NOTE_TYPE.progress.code]: [
      `# Subjective\n${who}, seen for ${facts.reason.toLowerCase()}.`,
      `# Objective\nVital signs reviewed. No acute distress.`,
      `# Assessment\nActive problems: ${problems}.`,
    ],
    [NOTE_TYPE.consult.code]: [
      `# Reason for Consultation\nRequested by ${practitionerDisplay(visit.practitioner)} regarding ${facts.reason.toLowerCase()}.`,
      `# Impression\n${who}. Problems reviewed: ${problems}.`,
      `# Recommendations\nContinue current management; follow up as scheduled.`,
    ],
  };
  return [`${kind.display}`, date(visit.startMs), ...(body[kind.code] ?? []), `# Plan\n${facts.plan}`, `Signed: ${practitionerDisplay(author)}`].join('\n\n');
}

function buildNote(ctx: PatientContext, visit: PlannedVisit, encounterUrn: string, kind: Code, facts: NoteFacts): DocumentReference {
  const author = kind.code === NOTE_TYPE.consult.code ? CONSULTANT : visit.practitioner;
  const writtenMs = visit.endMs + ctx.rng.int(5, 90) * MINUTE_MS;
  return {
    resourceType: 'DocumentReference',
    meta: { profile: [PROFILE.documentReference] },
    status: 'current',
    docStatus: 'final',
    type: concept(kind),
    category: [concept(CLINICAL_NOTE_CATEGORY)],
    subject: ctx.patientRef,
    date: instant(writtenMs),
    author: [practitionerRef(author)],
    custodian: organizationRef(CLINIC),
    content: [
      {
        attachment: {
          contentType: 'text/plain',
          data: base64Text(noteText(ctx, visit, kind, author, facts)),
          title: kind.display,
          creation: dateTime(writtenMs),
        },
      },
    ],
    context: { encounter: [{ reference: encounterUrn }], period: { start: dateTime(visit.startMs), end: dateTime(visit.endMs) } },
  };
}

/**
 * Notes for one visit. A fully documented visit gets all three note kinds plus a
 * history-and-physical DiagnosticReport carrying the same text; others get a progress note only.
 */
export function addVisitNotes(ctx: PatientContext, visit: PlannedVisit, encounterUrn: string, facts: NoteFacts, fullyDocumented: boolean): void {
  if (!fullyDocumented) {
    ctx.bundle.add(buildNote(ctx, visit, encounterUrn, NOTE_TYPE.progress, facts));
    return;
  }
  for (const kind of [NOTE_TYPE.historyAndPhysical, NOTE_TYPE.progress, NOTE_TYPE.consult]) {
    ctx.bundle.add(buildNote(ctx, visit, encounterUrn, kind, facts));
  }
  const hp = NOTE_TYPE.historyAndPhysical;
  const report: DiagnosticReport = {
    resourceType: 'DiagnosticReport',
    meta: { profile: [PROFILE.reportNote] },
    status: 'final',
    category: [concept(hp)],
    code: concept(hp),
    subject: ctx.patientRef,
    encounter: { reference: encounterUrn },
    effectiveDateTime: dateTime(visit.startMs),
    issued: instant(visit.endMs + ctx.rng.int(0, 3_599_999)),
    performer: [practitionerRef(visit.practitioner)],
    presentedForm: [{ contentType: 'text/plain', data: base64Text(noteText(ctx, visit, hp, visit.practitioner, facts)) }],
  };
  ctx.bundle.add(report);
}

/**
 * An imaging or cardiology report whose rendered document lives at a URL. When `incomplete`,
 * it models a report stub an interface delivered before the study was read: status 'unknown',
 * and neither effective[x] nor issued, which the legacy API renders as an absent-reason object.
 */
export function addImagingReport(ctx: PatientContext, visit: PlannedVisit, encounterUrn: string, incomplete: boolean): string {
  const study = ctx.rng.pick(IMAGING_AND_CARDIOLOGY_REPORTS);
  const report: DiagnosticReport = {
    resourceType: 'DiagnosticReport',
    meta: { profile: [PROFILE.reportNote] },
    status: incomplete ? 'unknown' : 'final',
    category: [concept(study.category)],
    code: concept(study.code),
    subject: ctx.patientRef,
    encounter: { reference: encounterUrn },
    performer: [practitionerRef(visit.practitioner), organizationRef(CLINIC)],
    presentedForm: [
      {
        contentType: 'application/pdf',
        url: `https://reports.riverbend.example.org/studies/${ctx.profile.number}-${visit.index + 1}-${study.code.code}.pdf`,
        title: study.code.display,
      },
    ],
  };
  if (!incomplete) {
    report.effectiveDateTime = dateTime(visit.startMs + 30 * MINUTE_MS);
    report.issued = instant(visit.startMs + ctx.rng.int(2, 26) * 60 * MINUTE_MS + ctx.rng.int(0, 59_999));
  }
  return ctx.bundle.add(report);
}
