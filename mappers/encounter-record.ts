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

/**
 * The record as the JSON text `JSON.stringify` gives of it, written directly: the keys are fixed and
 * in a fixed order, so only the values are serialized (each a string or null). Building an object
 * for `JSON.stringify` was a quarter of an Encounter's mapping (docs/performance.md).
 */
export function encounterRecordJson(encounter: FhirResource, context: MapContext): string {
  const self = `Encounter/${encounter.id ?? ''}`;
  const type = objects(encounter.type)[0];
  const typeCoding = objects(type?.coding)[0];
  const period = object(encounter.period);
  const notes = notesByType(context.referencing('DocumentReference', self));
  // Lists in plain loops, no closures: every encounter of an answer passes here.
  const locations = new Joined();
  for (const item of objects(encounter.location)) {
    const location = object(item.location);
    locations.add(displayName(context.resolve(referenceOf(location))) ?? text(location?.display));
  }
  const diagnosed = new Joined();
  for (const condition of diagnoses(encounter, self, context)) diagnosed.add(conceptText(condition.code));
  const performers = new Joined();
  for (const participant of objects(encounter.participant)) {
    const individual = object(participant.individual);
    performers.add(text(individual?.display) ?? displayName(context.resolve(referenceOf(individual))));
  }
  const reasons = new Joined();
  for (const request of context.referencing('ServiceRequest', self)) for (const reason of objects(request.reasonCode)) reasons.add(conceptText(reason));
  const authors = new Joined();
  for (const note of notes.all) {
    for (const author of objects(note.author)) authors.add(text(author.display) ?? displayName(context.resolve(referenceOf(author))));
  }
  // The patient's name as every legacy `subject.display` writes it (legacy-shape.ts).
  return (
    `{"patient_name":${json(referenceOf(encounter.subject) ? patientName(encounter.subject, context, ' ') : null)}` +
    `,"identifier":${json(text(objects(encounter.identifier)[0]?.value) ?? encounter.id)}` +
    `,"name":${json(text(type?.text) ?? text(typeCoding?.display))}` +
    `,"code":${json(text(typeCoding?.code))}` +
    `,"code_system":${json(text(typeCoding?.system))}` +
    `,"code_system_name":${json(ownEntry(CODE_SYSTEM_NAMES, text(typeCoding?.system)))}` +
    `,"admit_date":${json(context.time.timestamp(period?.start))}` +
    `,"discharge_date":${json(context.time.timestamp(period?.end))}` +
    `,"location":${json(locations.text())}` +
    `,"encounter_diagnosis":${json(diagnosed.text())}` +
    `,"performer":${json(performers.text())}` +
    `,"consult_note":${json(notes.consult)}` +
    `,"history_and_physical_note":${json(notes.historyAndPhysical)}` +
    `,"reason_for_referral":${json(reasons.text())}` +
    `,"progress_note":${json(notes.progress)}` +
    `,"author":${json(authors.text())}` +
    `,"status":${json(text(encounter.status))}}`
  );
}

/** What JSON.stringify escapes in a string: quote, backslash, control characters, (lone) surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finds the control characters JSON.stringify escapes, to know when to call it.
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A value of the record as JSON: a string serialized, null for anything not known. A string with
 * nothing to escape is quoted as it is (what JSON.stringify gives, at half its cost for the short
 * values); any other goes through JSON.stringify.
 */
function json(value: string | null | undefined): string {
  if (value === null || value === undefined) return 'null';
  return ESCAPED.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/** The record as an object (what encounterRecordJson writes), for readers that want its fields. */
export function encounterRecord(encounter: FhirResource, context: MapContext): EncounterRecord {
  return JSON.parse(encounterRecordJson(encounter, context)) as EncounterRecord;
}

/**
 * The encounter's diagnoses: the Conditions its `diagnosis` names, and those that name it in their
 * own `encounter` (US Core data records them that way round).
 */
function diagnoses(encounter: FhirResource, self: string, context: MapContext): FhirResource[] {
  const found: FhirResource[] = [];
  const add = (condition: FhirResource | undefined) => {
    if (condition?.resourceType === 'Condition' && !found.includes(condition)) found.push(condition);
  };
  for (const diagnosis of objects(encounter.diagnosis)) add(context.resolve(referenceOf(diagnosis.condition)));
  for (const condition of context.referencing('Condition', self)) if (referenceOf(condition.encounter) === self) add(condition);
  return found;
}

/** The notes' texts by LOINC type (each in the order the upstream returned them), and every note. */
interface NoteTexts {
  consult: string | null;
  historyAndPhysical: string | null;
  progress: string | null;
  all: FhirResource[];
}

/**
 * The text of the notes of each LOINC type, in one pass over the notes (a note whose type names
 * several of the codes counts for each); each note's inline text is decoded once.
 */
function notesByType(notes: FhirResource[]): NoteTexts {
  const texts: Record<keyof typeof NOTE_CODES, string[]> = { consult: [], historyAndPhysical: [], progress: [] };
  for (const note of notes) {
    let consult = false;
    let historyAndPhysical = false;
    let progress = false;
    for (const coding of objects(object(note.type)?.coding)) {
      if (coding.system !== LOINC) continue;
      if (coding.code === NOTE_CODES.consult) consult = true;
      else if (coding.code === NOTE_CODES.historyAndPhysical) historyAndPhysical = true;
      else if (coding.code === NOTE_CODES.progress) progress = true;
    }
    if (!consult && !historyAndPhysical && !progress) continue;
    for (const content of objects(note.content)) {
      const value = attachmentText(object(content.attachment));
      if (!value) continue;
      if (consult) texts.consult.push(value);
      if (historyAndPhysical) texts.historyAndPhysical.push(value);
      if (progress) texts.progress.push(value);
    }
  }
  return { consult: noteList(texts.consult), historyAndPhysical: noteList(texts.historyAndPhysical), progress: noteList(texts.progress), all: notes };
}

/** Notes of one type: each once, in upstream order; no de-duplication (hashing whole notes costs more than it saves). */
function noteList(list: string[]): string | null {
  return list.length === 0 ? null : list.length === 1 ? list[0]! : list.join('\n\n');
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
 * Decodes base64 UTF-8 text; undefined for anything that is not base64. `atob` (native) where its
 * answer is the table decoder's: data without whitespace (atob skips it, the table refuses it; a
 * skipped character shows in the decoded length, see below) whose bytes are ASCII (then the binary
 * string is the text); the table decoder for the rest (URL-safe alphabet, odd lengths, UTF-8
 * beyond ASCII). Same text either way, ~3× faster for the usual note (docs/performance.md).
 */
function decodeBase64Utf8(data: string): string | undefined {
  let binary: string | undefined;
  try {
    binary = atob(data);
  } catch {
    binary = undefined; // not what atob reads: the table decoder decides
  }
  if (binary !== undefined && isAscii(binary)) {
    let digits = data.length;
    while (digits > 0 && data.charCodeAt(digits - 1) === 61 /* = */) digits -= 1;
    // Without whitespace atob decodes every digit: floor(digits × 3/4) bytes. Each whitespace it
    // skipped takes 6 bits off, which shows in that count except for one skipped at digits ≡ 1
    // (mod 4): a count no base64 without whitespace has (atob refuses it).
    if (binary.length === Math.floor((digits * 3) / 4) && digits % 4 !== 1) return binary;
  }
  return decodeWithTable(data);
}

function isAscii(text: string): boolean {
  return !BEYOND_ASCII.test(text);
}

/** A character of a binary string (atob's: every one below 256) that is no ASCII. */
const BEYOND_ASCII = /[\u0080-\u00ff]/;

/**
 * Decodes base64 UTF-8 text with a table (the standard and URL-safe alphabets, trailing `=`
 * ignored); undefined for anything else. atob plus a copy loop was slower for text beyond ASCII.
 */
function decodeWithTable(data: string): string | undefined {
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

/** Distinct non-empty values joined with `; ` in the order first seen; null when there are none. */
class Joined {
  readonly #values: string[] = [];
  add(value: string | undefined): void {
    if (value && !this.#values.includes(value)) this.#values.push(value);
  }
  text(): string | null {
    return this.#values.length === 0 ? null : this.#values.length === 1 ? this.#values[0]! : this.#values.join('; ');
  }
}
