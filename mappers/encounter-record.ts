/**
 * The serialized internal record the legacy Encounter carries in `identifier[0].value` (spec 2.9),
 * built from the Encounter and the resources its search included. Key order and null-for-unknown
 * are documented in docs/decisions.md ("Encounter record").
 */
import type { FhirResource } from '../src/fhir/primitives.ts';
import { displayName, object, objects, ownEntry, referenceOf, text } from './fhir-values.ts';
import { patientName, type MapContext } from './legacy-shape.ts';

const LOINC = 'http://loinc.org';
const NOTE_CODES = { consult: '11488-4', historyAndPhysical: '34117-2', progress: '11506-3' } as const;

/** Human names of the code systems encounter types are written in. */
const CODE_SYSTEM_NAMES: Record<string, string> = {
  'http://snomed.info/sct': 'SNOMED CT',
  'http://www.ama-assn.org/go/cpt': 'CPT',
  'http://loinc.org': 'LOINC',
  'http://hl7.org/fhir/sid/icd-10-cm': 'ICD-10-CM',
  'http://terminology.hl7.org/CodeSystem/v3-ActCode': 'ActCode',
  'http://terminology.hl7.org/CodeSystem/encounter-type': 'Encounter type',
};

/** Every field is a string or null; the value string is this object serialized as JSON. */
export type EncounterRecord = Record<string, string | null>;

export function encounterRecord(encounter: FhirResource, context: MapContext): EncounterRecord {
  const self = `Encounter/${encounter.id ?? ''}`;
  const type = objects(encounter.type)[0];
  const typeCoding = objects(type?.coding)[0];
  const period = object(encounter.period);
  const notes = context.referencing('DocumentReference', self);
  return {
    // The patient's name as every legacy `subject.display` writes it (legacy-shape.ts).
    patient_name: referenceOf(encounter.subject) ? patientName(encounter.subject, context, ' ') : null,
    identifier: orNull(text(objects(encounter.identifier)[0]?.value) ?? encounter.id),
    name: orNull(text(type?.text) ?? text(typeCoding?.display)),
    code: orNull(text(typeCoding?.code)),
    code_system: orNull(text(typeCoding?.system)),
    code_system_name: orNull(ownEntry(CODE_SYSTEM_NAMES, text(typeCoding?.system))),
    admit_date: orNull(context.time.timestamp(period?.start)),
    discharge_date: orNull(context.time.timestamp(period?.end)),
    location: joined(objects(encounter.location).map((item) => {
      const location = object(item.location);
      return displayName(context.resolve(referenceOf(location))) ?? text(location?.display);
    })),
    encounter_diagnosis: joined(diagnoses(encounter, self, context).map((condition) => conceptText(condition.code))),
    performer: joined(objects(encounter.participant).map((participant) => {
      const individual = object(participant.individual);
      return text(individual?.display) ?? displayName(context.resolve(referenceOf(individual)));
    })),
    consult_note: noteText(notes, NOTE_CODES.consult),
    history_and_physical_note: noteText(notes, NOTE_CODES.historyAndPhysical),
    reason_for_referral: joined(
      context.referencing('ServiceRequest', self).flatMap((request) => objects(request.reasonCode).map(conceptText)),
    ),
    progress_note: noteText(notes, NOTE_CODES.progress),
    author: joined(notes.flatMap((note) => objects(note.author).map((author) => text(author.display) ?? displayName(context.resolve(referenceOf(author)))))),
    status: orNull(text(encounter.status)),
  };
}

/**
 * The encounter's diagnoses: the Conditions its `diagnosis` names, and those that name it in their
 * own `encounter` (US Core data records them that way round).
 */
function diagnoses(encounter: FhirResource, self: string, context: MapContext): FhirResource[] {
  const named = objects(encounter.diagnosis).map((diagnosis) => context.resolve(referenceOf(diagnosis.condition)));
  const pointing = context.referencing('Condition', self).filter((condition) => referenceOf(condition.encounter) === self);
  return [...new Set([...named, ...pointing])].filter((condition): condition is FhirResource => condition?.resourceType === 'Condition');
}

/** The text of the notes of one LOINC type, in the order the upstream returned them. */
function noteText(notes: FhirResource[], loincCode: string): string | null {
  const ofType = notes.filter((note) => objects(object(note.type)?.coding).some((c) => c.system === LOINC && c.code === loincCode));
  const texts = ofType.flatMap((note) => objects(note.content).map((content) => attachmentText(object(content.attachment))));
  const present = texts.filter((value): value is string => !!value);
  // Each note once, in upstream order; no de-duplication: hashing whole notes costs more than it saves.
  return present.length > 0 ? present.join('\n\n') : null;
}

/** Inline text is decoded; anything else is given by its URL. */
function attachmentText(attachment: Record<string, unknown> | undefined): string | undefined {
  const data = text(attachment?.data);
  const contentType = text(attachment?.contentType) ?? '';
  if (data && (contentType === '' || contentType.startsWith('text/'))) return decodeBase64Utf8(data);
  return text(attachment?.url);
}

const utf8 = new TextDecoder();
const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** Sextet of each base64 character (URL-safe `-` and `_` too); 255 for anything else. */
const SEXTETS = new Uint8Array(128).fill(255);
for (let index = 0; index < 64; index += 1) SEXTETS[BASE64_ALPHABET.charCodeAt(index)] = index;
SEXTETS['-'.charCodeAt(0)] = 62;
SEXTETS['_'.charCodeAt(0)] = 63;

/**
 * Decodes base64 UTF-8 text with a table: atob plus a copy loop was the largest cost of mapping an
 * Encounter (docs/performance.md). Undefined for anything that is not base64.
 */
function decodeBase64Utf8(data: string): string | undefined {
  let end = data.length;
  while (end > 0 && data.charCodeAt(end - 1) === 61 /* = */) end -= 1;
  const bytes = new Uint8Array(Math.floor((end * 3) / 4));
  let bits = 0;
  let buffered = 0;
  let written = 0;
  for (let index = 0; index < end; index += 1) {
    const code = data.charCodeAt(index);
    const sextet = code < 128 ? SEXTETS[code]! : 255;
    if (sextet === 255) return undefined;
    buffered = ((buffered << 6) | sextet) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[written++] = (buffered >> bits) & 0xff;
    }
  }
  return utf8.decode(bytes.subarray(0, written));
}

function conceptText(concept: unknown): string | undefined {
  const value = object(concept);
  return text(value?.text) ?? text(objects(value?.coding)[0]?.display) ?? text(objects(value?.coding)[0]?.code);
}

/** Distinct non-empty values joined; null when there are none. */
function joined(values: (string | undefined)[]): string | null {
  const present = values.filter((value): value is string => !!value);
  if (present.length <= 1) return present[0] ?? null;
  return [...new Set(present)].join('; ');
}

function orNull(value: string | undefined): string | null {
  return value ?? null;
}
