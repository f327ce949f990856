/**
 * Reads an upstream body as FHIR JSON, refusing what the rest of the service could only misread.
 * An answer that breaks FHIR JSON's shape (an `entry` or `link` that is not an array, an entry
 * without a resource object, a `search` that is not an object) is an upstream failure (502), never
 * read as "nothing there"; so is a value no legacy payload could carry faithfully: nesting deeper
 * than any FHIR resource, or a number beyond what a double holds. See docs/decisions.md
 * ("Talking to the upstream").
 */
import { FacadeError } from '../errors.ts';
import { isObject, type FhirResource } from '../fhir/primitives.ts';
import { MAX_JSON_DEPTH } from '../json-limits.ts';

export type { FhirResource };

/** One entry of a search Bundle: its resource and what the server says it is there for. */
export interface BundleEntry {
  resource: FhirResource;
  /** `search.mode` as written: `match`, `include` or `outcome`; undefined when not written. */
  mode: 'match' | 'include' | 'outcome' | undefined;
}

export interface ParsedBundle {
  entries: BundleEntry[];
  /** The `next` link as written; undefined on the last page. */
  next: string | undefined;
  /** The `self` link as written: the server's own address for this search (behind a proxy, not ours). */
  self: string | undefined;
}

const SEARCH_MODES = new Set(['match', 'include', 'outcome']);

/** A resource body (a read): JSON, usable, with a string `resourceType` and a string `id` if any. */
export function parseResourceBody(body: string): FhirResource {
  const value = parseUsableJson(body);
  if (!isResource(value)) throw badBody('the body is not a FHIR resource');
  return value;
}

/** A search Bundle page, its shape checked wherever the service reads it. */
export function parseBundleBody(body: string): ParsedBundle {
  const bundle = parseResourceBody(body);
  if (bundle.resourceType !== 'Bundle') throw badBody('the body is not a Bundle');
  // A history or collection Bundle answering a search would show old versions or strays as matches.
  if (bundle.type !== 'searchset') throw badBody('the search answer is not a searchset Bundle');
  const links = arrayMember(bundle, 'link');
  return { entries: arrayMember(bundle, 'entry').map(bundleEntry), next: nextLink(links), self: selfLink(links) };
}

function bundleEntry(entry: unknown): BundleEntry {
  if (!isObject(entry)) throw badBody('a Bundle entry is not an object');
  if (!isResource(entry.resource)) throw badBody('a Bundle entry has no resource');
  if (entry.search === undefined) return { resource: entry.resource, mode: undefined };
  if (!isObject(entry.search)) throw badBody('a Bundle entry search is not an object');
  const { mode } = entry.search;
  if (mode === undefined) return { resource: entry.resource, mode: undefined };
  if (typeof mode !== 'string' || !SEARCH_MODES.has(mode)) throw badBody('a Bundle entry has an unknown search mode');
  return { resource: entry.resource, mode: mode as BundleEntry['mode'] };
}

/** The one `next` link of a page; two of them would leave the rest of the search ambiguous. */
function nextLink(links: unknown[]): string | undefined {
  let next: string | undefined;
  for (const link of links) {
    if (!isObject(link) || typeof link.relation !== 'string' || typeof link.url !== 'string') {
      throw badBody('a Bundle link is not {relation, url}');
    }
    if (link.relation !== 'next') continue;
    if (next !== undefined) throw badBody('a Bundle page has two next links');
    if (link.url === '') throw badBody('a next link is empty');
    next = link.url;
  }
  return next;
}

/** The `self` link, where the page has one (already checked to be `{relation, url}` by nextLink). */
function selfLink(links: unknown[]): string | undefined {
  const self = links.find((link) => isObject(link) && link.relation === 'self') as { url: string } | undefined;
  return self?.url;
}

/** A member FHIR gives as an array (0..*): absent is `[]`, anything but an array is a broken Bundle. */
function arrayMember(bundle: FhirResource, name: string): unknown[] {
  const member = bundle[name];
  if (member === undefined) return [];
  if (!Array.isArray(member)) throw badBody(`Bundle.${name} is not an array`);
  return member;
}

/**
 * `JSON.parse`, then refuses what it cannot hold faithfully: nesting deeper than MAX_JSON_DEPTH
 * (mapping and serializing such a value would overflow the call stack: a 500) and numbers beyond a
 * double (`1e400` would be written back as `null`, a non-zero `1e-400` as `0`). Both are checked in
 * one scan of the text, jumping from string to string: every upstream body passes here, and the
 * scan costs a fraction of `JSON.parse` (a walk over every parsed member cost more than the parse).
 */
export function parseUsableJson(body: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new FacadeError('upstream-bad-body', 'the body is not JSON', { cause: error, reason: 'not-json' });
  }
  checkDepthAndNumbers(body);
  return value;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/** A number token: digits, sign, point, exponent. */
const NUMBER_CHAR = /[-+.\deE]/;
/** Numbers this short without an exponent always fit a double: only the others are converted to check. */
const SHORT_NUMBER = 20;

/** Scans JSON text already known to be valid (strings skipped whole, so nothing in one counts). */
function checkDepthAndNumbers(text: string): void {
  let depth = 0;
  for (let at = 0; at < text.length; at += 1) {
    const char = text.charCodeAt(at);
    if (char === QUOTE) {
      at = closingQuote(text, at);
    } else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) throw badBody(`the body nests deeper than ${MAX_JSON_DEPTH} levels`, 'too-deep');
    } else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) {
      depth -= 1;
    } else if (char === MINUS || (char >= DIGIT_0 && char <= DIGIT_9)) {
      let end = at + 1;
      while (end < text.length && NUMBER_CHAR.test(text[end]!)) end += 1;
      checkNumber(text.slice(at, end));
      at = end - 1;
    }
  }
}

/** Refuses a number a double cannot hold: one that overflows (`1e400`), or one written non-zero that rounds to zero (`1e-400`). */
function checkNumber(token: string): void {
  if (token.length < SHORT_NUMBER && !/[eE]/.test(token)) return;
  const value = Number(token);
  if (!Number.isFinite(value)) throw badBody('a number is beyond the range of a double', 'number-out-of-range');
  if (value === 0 && /[1-9]/.test(token.split(/[eE]/)[0] ?? '')) throw badBody('a number is below the range of a double', 'number-out-of-range');
}

/** The index of the quote that closes the string opening at `start` (one not escaped by an odd run of backslashes). */
function closingQuote(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

function badBody(detail: string, reason = 'not-fhir'): FacadeError {
  return new FacadeError('upstream-bad-body', detail, { reason });
}

export { isObject };

/** A FHIR resource type name: a capital, then letters (never `constructor` or `__proto__`). */
const RESOURCE_TYPE = /^[A-Z][A-Za-z]{1,63}$/;

function isResource(value: unknown): value is FhirResource {
  return (
    isObject(value) &&
    typeof value.resourceType === 'string' &&
    RESOURCE_TYPE.test(value.resourceType) &&
    (value.id === undefined || typeof value.id === 'string')
  );
}
