/**
 * A JSON parser and serializer that keep what `JSON.parse` throws away and a migration must see:
 * numbers as written (`1.50` is not `1.5`, `1e2` is not `100`) and the order of object keys.
 *
 * Values: `null`, booleans and strings as in JS; a number is a `JsonNumber` holding its source
 * text; an array is a JS array; an object is a `Map` (insertion order = source order; a repeated
 * key keeps its first position and its last value, as `JSON.parse` keeps the last value).
 */
/**
 * Nesting deeper than this is a syntax error: a recording nested deeper would exhaust the call stack
 * of whatever walks it. The same bound as the service's upstream reads (src/json-limits.ts), kept
 * here rather than imported: the kit imports nothing from the service it diffs.
 */
export const MAX_JSON_DEPTH = 256;

export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;
export type JsonObject = Map<string, JsonValue>;

export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
  /** Where in the text (UTF-16 code units from the start) the parser stopped. */
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return value instanceof Map;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS = [
  ['true', true],
  ['false', false],
  ['null', null],
] as const;

/** Parses JSON text (RFC 8259, whitespace around allowed). Throws `JsonSyntaxError` with the offset. */
export function parseJsonText(text: string): JsonValue {
  let at = 0;
  let depth = 0;

  const fail = (what: string): never => {
    throw new JsonSyntaxError(`${what} at offset ${at}`, at);
  };
  const enter = () => {
    depth += 1;
    if (depth > MAX_JSON_DEPTH) fail(`nested deeper than ${MAX_JSON_DEPTH} levels`);
  };
  const skipWhitespace = () => {
    while (at < text.length) {
      const c = text.charCodeAt(at);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      at += 1;
    }
  };

  const parseString = (): string => {
    const start = at;
    at += 1; // opening quote
    let escaped = false;
    while (at < text.length) {
      const c = text.charCodeAt(at);
      if (c === 0x22) {
        at += 1;
        const raw = text.slice(start, at);
        if (!escaped) {
          // biome-ignore lint/suspicious/noControlCharactersInRegex: JSON forbids raw U+0000–U+001F in a string; this finds them.
          if (/[\u0000-\u001f]/.test(raw)) fail('control character in a string');
          return raw.slice(1, -1);
        }
        // Escapes are rare; JSON.parse of the one string token decodes them exactly.
        try {
          return JSON.parse(raw) as string;
        } catch {
          return fail('bad string escape');
        }
      }
      if (c === 0x5c) {
        escaped = true;
        at += 2;
      } else {
        at += 1;
      }
    }
    return fail('unterminated string');
  };

  const parseValue = (): JsonValue => {
    skipWhitespace();
    const c = text[at];
    if (c === '"') return parseString();
    if (c === '{') {
      enter();
      at += 1;
      const object: JsonObject = new Map();
      skipWhitespace();
      if (text[at] === '}') {
        at += 1;
        depth -= 1;
        return object;
      }
      for (;;) {
        skipWhitespace();
        if (text[at] !== '"') fail('expected a key');
        const key = parseString();
        skipWhitespace();
        if (text[at] !== ':') fail('expected ":"');
        at += 1;
        object.set(key, parseValue());
        skipWhitespace();
        if (text[at] === ',') at += 1;
        else if (text[at] === '}') {
          at += 1;
          depth -= 1;
          return object;
        } else fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      enter();
      at += 1;
      const array: JsonValue[] = [];
      skipWhitespace();
      if (text[at] === ']') {
        at += 1;
        depth -= 1;
        return array;
      }
      for (;;) {
        array.push(parseValue());
        skipWhitespace();
        if (text[at] === ',') at += 1;
        else if (text[at] === ']') {
          at += 1;
          depth -= 1;
          return array;
        } else fail('expected "," or "]"');
      }
    }
    for (const [word, value] of LITERALS) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = at;
    const match = NUMBER.exec(text);
    if (match) {
      at += match[0].length;
      return new JsonNumber(match[0]);
    }
    return fail(at >= text.length ? 'unexpected end of text' : `unexpected character ${JSON.stringify(c)}`);
  };

  let value: JsonValue;
  try {
    value = parseValue();
  } catch (error) {
    // The depth cap keeps the stack in bounds; should the caller's own stack be nearly spent, the
    // text is still refused as JSON rather than failing the command with a RangeError.
    if (error instanceof RangeError) fail('nested too deeply for the stack left');
    throw error;
  }
  skipWhitespace();
  if (at !== text.length) fail('text after the JSON value');
  return value;
}

/** Parses, or `undefined` when the text is not JSON. */
export function tryParseJsonText(text: string): JsonValue | undefined {
  try {
    return parseJsonText(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return undefined;
    throw error;
  }
}

/**
 * Compact JSON text, numbers as they were written and keys in their order. Strings are written
 * as `JSON.stringify` writes them, so text that `JSON.stringify` produced comes back byte for byte.
 */
export function serializeJson(value: JsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof JsonNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(serializeJson).join(',')}]`;
  const members: string[] = [];
  for (const [key, member] of value) members.push(`${JSON.stringify(key)}:${serializeJson(member)}`);
  return `{${members.join(',')}}`;
}

/** A string that holds a serialized JSON object or array (the Encounter record, the Assessment meta). */
export function parseEmbeddedJson(text: string): JsonObject | JsonValue[] | undefined {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return undefined;
  const value = tryParseJsonText(text);
  return isJsonObject(value) || Array.isArray(value) ? value : undefined;
}
