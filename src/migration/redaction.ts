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
 * are (numbers keep their spelling: the body is re-serialized by json-text.ts).
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

const FIELD_RULES: readonly FieldRule[] = [
  // HumanName (the Practitioner's and any other name object); `text` is caught by the free-text rule.
  { keys: ['name', 'family'], kind: 'name' },
  { keys: ['name', 'given'], kind: 'name' },
  // The display of a reference names a person or an organization. A Coding's display is a code's
  // label and stays: a Coding is the object that has a `code` or a `system`.
  { keys: ['display'], kind: (holder) => (holder.has('code') || holder.has('system') ? undefined : 'name') },
  { keys: ['telecom', 'value'], kind: (holder) => TELECOM_KINDS[String(holder.get('system'))] ?? 'telecom' },
  { keys: ['address', 'line'], kind: 'address' },
  { keys: ['address', 'district'], kind: 'address' },
  { keys: ['address', 'city'], kind: 'city' },
  { keys: ['address', 'postalCode'], kind: 'postal' },
  { keys: ['identifier', 'value'], kind: 'id' },
  { keys: ['subscriberId'], kind: 'id' },
  // Free text.
  { keys: ['text'], kind: 'text' },
  { keys: ['div'], kind: 'text' },
  { keys: ['conclusion'], kind: 'text' },
  { keys: ['description'], kind: 'text' },
  { keys: ['comment'], kind: 'text' },
  { keys: ['valueString'], kind: 'text' },
  // Inline content: an attachment's data, and a `data:` URL (a report's text is sent that way).
  { keys: ['data'], kind: 'data' },
  { keys: ['url'], kind: (_holder, value) => (value.startsWith('data:') ? 'data' : undefined) },
  // The Encounter's serialized record (docs/decisions.md, "Encounter record"), a JSON string of its own.
  { keys: ['patient_name'], kind: 'name' },
  { keys: ['performer'], kind: 'name' },
  { keys: ['author'], kind: 'name' },
  { keys: ['identifier'], kind: 'id' },
  { keys: ['consult_note'], kind: 'text' },
  { keys: ['history_and_physical_note'], kind: 'text' },
  { keys: ['progress_note'], kind: 'text' },
];

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

  const redactString = (value: string, keys: readonly string[], holder: JsonObject | undefined): string => {
    if (value === '') return value; // an empty value says "nothing written": keep that visible
    const embedded = parseEmbeddedJson(value);
    if (embedded !== undefined) {
      const redacted = redact(embedded, [], undefined);
      return redacted === embedded ? value : serializeJson(redacted);
    }
    const kind = holder === undefined ? undefined : kindFor(keys, holder, value);
    if (kind === undefined) return value;
    // A narrative stays an XHTML div, so what reads it still finds one.
    if (keys.at(-1) === 'div') return `<div xmlns="http://www.w3.org/1999/xhtml">${pseudonym(kind, value)}</div>`;
    return pseudonym(kind, value);
  };

  /** Returns the same object when nothing under it changed, so unchanged embedded JSON keeps its text. */
  const redact = (value: JsonValue, keys: readonly string[], holder: JsonObject | undefined): JsonValue => {
    if (typeof value === 'string') return redactString(value, keys, holder);
    if (Array.isArray(value)) {
      const items = value.map((item) => redact(item, keys, holder));
      return items.every((item, index) => item === value[index]) ? value : items;
    }
    if (isJsonObject(value)) {
      let changed = false;
      const members: JsonObject = new Map();
      for (const [member, memberValue] of value) {
        const redacted = redact(memberValue, [...keys, member], value);
        changed ||= redacted !== memberValue;
        members.set(member, redacted);
      }
      return changed ? members : value;
    }
    return value;
  };

  return {
    keyId: digest('redaction key id').slice(0, 12),
    pseudonym,
    redactValue: (value) => redact(value, [], undefined),
    redactBodyText(bodyText) {
      if (bodyText.trim() === '') return bodyText;
      const parsed = tryParseJsonText(bodyText);
      if (parsed === undefined) return pseudonym('text', bodyText);
      const redacted = redact(parsed, [], undefined);
      return redacted === parsed ? bodyText : serializeJson(redacted);
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
