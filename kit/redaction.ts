/**
 * Redaction of response bodies: personal values replaced by consistent pseudonyms.
 *
 * A pseudonym is `<kind>-<first 10 hex digits of HMAC-SHA-256(key, value)>` (`name-3f9a1c02d4`):
 * the same value gets the same pseudonym in every file and on both sides of a diff, so
 * differences still line up, while the value cannot be recovered without the key (a plain hash of
 * a name could be reversed by hashing candidate names). The kind keeps the field readable.
 *
 * Every rule is in `FIELD_RULES` below, by the JSON keys leading to a value. Only strings are
 * replaced: the JSON structure, codes, systems, dates, references, ids and numbers stay as they
 * are (numbers keep their spelling: the body is re-serialized by json-text.ts). A string that is
 * not in an object at all (a body that is a string, or an array of strings) is free text.
 *
 * Strings holding serialized JSON are looked into only where the legacy interface puts one: the
 * Encounter's record (`identifier[].value` of an Encounter), where every string is replaced but
 * those of `RECORD_KEPT`, and the Assessment's `meta`, redacted by the rules here. Any other string
 * is redacted as the text it is, even when it parses as JSON.
 */
import { createHmac } from 'node:crypto';
import { isJsonObject, parseEmbeddedJson, serializeJson, tryParseJsonText, type JsonObject, type JsonValue } from './json-text.ts';

export type PseudonymKind = 'name' | 'phone' | 'email' | 'url' | 'telecom' | 'address' | 'city' | 'postal' | 'id' | 'text' | 'data';

interface FieldRule {
  /** The last keys of the path to the value (array indexes do not count): `['telecom', 'value']`. */
  keys: readonly string[];
  kind: PseudonymKind | ((holder: JsonObject, value: string) => PseudonymKind | undefined);
}

const TELECOM_KINDS: Record<string, PseudonymKind> = { phone: 'phone', fax: 'phone', sms: 'phone', pager: 'phone', email: 'email', url: 'url' };

/** The keys holding a HumanName, an Address, a ContactPoint: as an element, or as an extension's value. */
const NAME_KEYS = ['name', 'valueHumanName'];
const ADDRESS_KEYS = ['address', 'valueAddress'];
const TELECOM_KEYS = ['telecom', 'valueContactPoint'];
const under = (holders: readonly string[], key: string, kind: FieldRule['kind']): FieldRule[] => holders.map((holder) => ({ keys: [holder, key], kind }));

const FIELD_RULES: readonly FieldRule[] = [
  // HumanName (the Practitioner's and any other name object); `text` is caught by the free-text rule.
  ...['family', 'given', 'prefix', 'suffix'].flatMap((key) => under(NAME_KEYS, key, 'name')),
  // The display of a reference names a person or an organization. A Coding's display is a code's
  // label and stays: a Coding is the object that has a `code` or a `system`.
  { keys: ['display'], kind: (holder) => (holder.has('code') || holder.has('system') ? undefined : 'name') },
  ...under(TELECOM_KEYS, 'value', (holder) => TELECOM_KINDS[String(holder.get('system'))] ?? 'telecom'),
  ...under(ADDRESS_KEYS, 'line', 'address'),
  ...under(ADDRESS_KEYS, 'district', 'address'),
  ...under(ADDRESS_KEYS, 'city', 'city'),
  ...under(ADDRESS_KEYS, 'postalCode', 'postal'),
  { keys: ['identifier', 'value'], kind: 'id' },
  // Coverage: the member id (FHIR and legacy spelling), the plan and group numbers and names (`Class`
  // as the legacy interface spells FHIR's `class`; an Encounter's `class` is a Coding, without these).
  { keys: ['subscriberId'], kind: 'id' },
  { keys: ['subscriber_id'], kind: 'id' },
  ...under(['Class', 'class'], 'value', 'id'),
  ...under(['Class', 'class'], 'name', 'text'),
  // Free text, error messages included (they may quote what was asked or found).
  ...['text', 'div', 'conclusion', 'description', 'comment', 'valueString', 'valueMarkdown'].map((key) => ({ keys: [key], kind: 'text' as const })),
  ...['diagnostics', 'message', 'error', 'error_description'].map((key) => ({ keys: [key], kind: 'text' as const })),
  // Inline content: an attachment's data, and a `data:` URL (a report's text is sent that way).
  { keys: ['data'], kind: 'data' },
  { keys: ['url'], kind: (_holder, value) => (/^\s*data:/i.test(value) ? 'data' : undefined) },
];

/**
 * Inside the Encounter's record every string is replaced but these: codes, dates and the status
 * (docs/decisions.md, "Encounter record"). The kind of the others is by key; unknown keys are text.
 */
const RECORD_KEPT = new Set(['code', 'code_system', 'code_system_name', 'admit_date', 'discharge_date', 'status']);
const RECORD_KINDS: Record<string, PseudonymKind> = { patient_name: 'name', performer: 'name', author: 'name', identifier: 'id' };

export interface Redactor {
  /** Identifies the key without revealing it: recordings store it, the diff checks it is the same key. */
  readonly keyId: string;
  pseudonym(kind: PseudonymKind, value: string): string;
  /** A body redacted: JSON re-serialized with its structure; any other non-empty text replaced whole. */
  redactBodyText(bodyText: string): string;
  redactValue(value: JsonValue): JsonValue;
}

export class RedactionKeyError extends Error {
  override readonly name = 'RedactionKeyError';
}

/** Keys shorter than this are refused: a short key could be guessed, and with it every pseudonym reversed. */
const MIN_KEY_LENGTH = 16;

export function createRedactor(key: string | undefined): Redactor {
  if (key === undefined || key.length < MIN_KEY_LENGTH) {
    throw new RedactionKeyError(`REDACTION_KEY must be set to a secret of at least ${MIN_KEY_LENGTH} characters`);
  }
  const digest = (value: string) => createHmac('sha256', key).update(value, 'utf8').digest('hex');
  const pseudonym = (kind: PseudonymKind, value: string) => `${kind}-${digest(value).slice(0, 10)}`;

  /** Where a value is: the keys leading to it, the object holding it, and the nearest resource around it (`resourceType`) with how many keys lead to that. */
  interface At {
    keys: readonly string[];
    holder: JsonObject | undefined;
    resourceType: string | undefined;
    resourceAt: number;
  }

  const redactString = (value: string, at: At): string => {
    if (value === '') return value; // an empty value says "nothing written": keep that visible
    const own = at.keys.slice(at.resourceAt); // the keys from the resource on
    if (at.resourceType === 'Encounter' && own.length === 2 && own[0] === 'identifier' && own[1] === 'value') {
      const record = parseEmbeddedJson(value);
      if (record !== undefined) return reserialized(value, record, redactRecord(record));
    }
    if (at.resourceType === 'Assessment' && own.length === 1 && own[0] === 'meta') {
      const meta = parseEmbeddedJson(value);
      if (meta !== undefined) return reserialized(value, meta, redact(meta, top));
    }
    const kind = at.holder === undefined ? 'text' : kindFor(at.keys, at.holder, value);
    if (kind === undefined) return value;
    // A narrative stays an XHTML div, so what reads it still finds one.
    if (at.keys.at(-1) === 'div') return `<div xmlns="http://www.w3.org/1999/xhtml">${pseudonym(kind, value)}</div>`;
    return pseudonym(kind, value);
  };

  /** The Encounter record: every string replaced, but the values of the keys of `RECORD_KEPT`. */
  const redactRecord = (record: JsonValue): JsonValue => {
    if (!isJsonObject(record)) return redactAll(record, 'text');
    const members: JsonObject = new Map();
    for (const [key, value] of record) members.set(key, RECORD_KEPT.has(key) ? value : redactAll(value, RECORD_KINDS[key] ?? 'text'));
    return unchangedOr(record, members);
  };
  const redactAll = (value: JsonValue, kind: PseudonymKind): JsonValue => {
    if (typeof value === 'string') return value === '' ? value : pseudonym(kind, value);
    if (Array.isArray(value))
      return unchangedOr(
        value,
        value.map((item) => redactAll(item, kind)),
      );
    if (isJsonObject(value)) return unchangedOr(value, new Map([...value].map(([key, member]) => [key, redactAll(member, kind)])));
    return value;
  };

  /** Returns the same object when nothing under it changed, so unchanged embedded JSON keeps its text. */
  const redact = (value: JsonValue, at: At): JsonValue => {
    if (typeof value === 'string') return redactString(value, at);
    if (Array.isArray(value))
      return unchangedOr(
        value,
        value.map((item) => redact(item, at)),
      );
    if (isJsonObject(value)) {
      const type = value.get('resourceType');
      const resource = typeof type === 'string' ? { resourceType: type, resourceAt: at.keys.length } : at;
      const members: JsonObject = new Map();
      for (const [member, memberValue] of value) {
        members.set(
          member,
          redact(memberValue, { keys: [...at.keys, member], holder: value, resourceType: resource.resourceType, resourceAt: resource.resourceAt }),
        );
      }
      return unchangedOr(value, members);
    }
    return value;
  };
  const top: At = { keys: [], holder: undefined, resourceType: undefined, resourceAt: 0 };

  return {
    keyId: digest('redaction key id').slice(0, 12),
    pseudonym,
    redactValue: (value) => redact(value, top),
    redactBodyText(bodyText) {
      if (bodyText.trim() === '') return bodyText;
      const parsed = tryParseJsonText(bodyText);
      if (parsed === undefined) return pseudonym('text', bodyText);
      return reserialized(bodyText, parsed, redact(parsed, top));
    },
  };
}

function kindFor(keys: readonly string[], holder: JsonObject, value: string): PseudonymKind | undefined {
  for (const rule of FIELD_RULES) {
    if (!endsWith(keys, rule.keys)) continue;
    const kind = typeof rule.kind === 'function' ? rule.kind(holder, value) : rule.kind;
    if (kind !== undefined) return kind;
  }
  return undefined;
}

function endsWith(keys: readonly string[], tail: readonly string[]): boolean {
  if (tail.length > keys.length) return false;
  return tail.every((key, index) => keys[keys.length - tail.length + index] === key);
}

/** The original text when nothing changed, else the redacted value serialized. */
function reserialized(text: string, parsed: JsonValue, redacted: JsonValue): string {
  return redacted === parsed ? text : serializeJson(redacted);
}

/** The original array or object when no member changed (so its text is kept), else the new one. */
function unchangedOr<T extends JsonValue[] | JsonObject>(original: T, redacted: T): T {
  if (Array.isArray(original)) return (redacted as JsonValue[]).every((item, index) => item === original[index]) ? original : redacted;
  for (const [key, value] of original as JsonObject) if ((redacted as JsonObject).get(key) !== value) return redacted;
  return original;
}
