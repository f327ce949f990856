/**
 * The number-preserving JSON parser and serializer the diff and the redaction rest on.
 */
import { describe, expect, it } from 'vitest';
import {
  isJsonObject,
  type JsonNumber,
  JsonSyntaxError,
  MAX_JSON_DEPTH,
  parseEmbeddedJson,
  parseJsonText,
  serializeJson,
  tryParseJsonText,
} from '../../kit/json-text.ts';

describe('parseJsonText', () => {
  it('keeps numbers as written', () => {
    const parsed = parseJsonText('[1.50, 1.5, 1e2, 100, -0, 0.0, 12345678901234567890123]');
    expect(Array.isArray(parsed) && parsed.map((item) => (item as JsonNumber).text)).toEqual([
      '1.50',
      '1.5',
      '1e2',
      '100',
      '-0',
      '0.0',
      '12345678901234567890123',
    ]);
  });

  it('keeps object keys in source order and reads every kind of value', () => {
    const parsed = parseJsonText(' {"b": true, "a": null, "c": {"z": "x", "y": []}, "d": false} ');
    expect(isJsonObject(parsed) && [...parsed.keys()]).toEqual(['b', 'a', 'c', 'd']);
    const inner = isJsonObject(parsed) ? parsed.get('c') : undefined;
    expect(isJsonObject(inner) && [...inner.keys()]).toEqual(['z', 'y']);
    expect(isJsonObject(parsed) && [parsed.get('b'), parsed.get('a'), parsed.get('d')]).toEqual([true, null, false]);
  });

  it('decodes string escapes as JSON.parse does', () => {
    const text = JSON.stringify('quote " backslash \\ newline \n tab \t é \u0001 😀 </div>');
    expect(parseJsonText(text)).toBe(JSON.parse(text));
    expect(parseJsonText('"\\u00e9\\/"')).toBe('é/');
  });

  it.each([
    ['', 'unexpected end'],
    ['{', 'expected a key'],
    ['[1,]', 'unexpected character'],
    ['{"a" 1}', 'expected ":"'],
    ['01', 'text after'],
    ['1.', 'text after'],
    ['"abc', 'unterminated'],
    ['[1] x', 'text after'],
    ["{'a':1}", 'expected a key'],
    ['"a\u0001"', 'control character'],
    ['NaN', 'unexpected character'],
  ])('refuses %j (%s)', (text, message) => {
    expect(() => parseJsonText(text)).toThrow(JsonSyntaxError);
    expect(() => parseJsonText(text)).toThrow(message);
    expect(tryParseJsonText(text)).toBeUndefined();
  });
});

describe('nesting depth', () => {
  it('is capped: deeper text is a syntax error of the parser, never a RangeError', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(serializeJson(parseJsonText(nested(MAX_JSON_DEPTH)))).toBe(nested(MAX_JSON_DEPTH));
    expect(() => parseJsonText(nested(MAX_JSON_DEPTH + 1))).toThrow(JsonSyntaxError);
    expect(() => parseJsonText(nested(MAX_JSON_DEPTH + 1))).toThrow(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    for (const text of ['['.repeat(200_000), '{"a":'.repeat(200_000), `[${'{"a":['.repeat(100_000)}`]) {
      expect(() => parseJsonText(text)).toThrow(JsonSyntaxError);
      expect(tryParseJsonText(text)).toBeUndefined();
    }
    expect(parseEmbeddedJson('['.repeat(200_000))).toBeUndefined();
  });
});

describe('serializeJson', () => {
  it('gives back what JSON.stringify wrote, byte for byte', () => {
    const value = {
      resourceType: 'Bundle',
      total: 2,
      entry: [{ full_url: '/Observation/1', resource: { value: 1.25, ok: true, none: null, text: 'é "q" <b>' } }],
      z: -3e-7,
    };
    const text = JSON.stringify(value);
    expect(serializeJson(parseJsonText(text))).toBe(text);
  });

  it('writes numbers as they were read and whitespace away', () => {
    expect(serializeJson(parseJsonText('{ "a" : 1.50 , "b" : [ 1e2 ] }'))).toBe('{"a":1.50,"b":[1e2]}');
  });
});

describe('parseEmbeddedJson', () => {
  it('reads a string that holds a JSON object or array, and nothing else', () => {
    expect(isJsonObject(parseEmbeddedJson('{"patient_name":"A"}'))).toBe(true);
    expect(Array.isArray(parseEmbeddedJson('[1]'))).toBe(true);
    expect(parseEmbeddedJson('12')).toBeUndefined();
    expect(parseEmbeddedJson('"x"')).toBeUndefined();
    expect(parseEmbeddedJson('[1] follow-up in one year')).toBeUndefined();
  });
});
