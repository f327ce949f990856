/**
 * Finding an access token in an answer however the answer wrote it, and scrubbing it out.
 *
 * A server that echoes the token (in a paging link, an error message, a header) may write it plain,
 * percent-encoded (`encodeURIComponent`, or form encoding with `~` as `%7E`; upper- or lower-case
 * hex), encoded twice (`%252F`), with JSON escapes (`\/`, `\u002f`) or as HTML character
 * references (`&#x2F;`), and as part of a longer word (`%3DSecret…`, `Bearer%20Secret…`). So the
 * text is decoded round by round — percent escapes, those JSON escapes and character references,
 * until nothing is left to decode (at most `MAX_DECODING_ROUNDS` rounds) — and the token is looked
 * for as a plain substring in the text and after every round. Each decoded character remembers
 * the stretch of the original text it came from, so a scrub replaces exactly the original stretch
 * (escapes included) by `[token]`.
 */
import type { Exchange } from './http-exchange.ts';

/** Nobody encodes a value more than a few times; the bound keeps a hostile answer cheap. */
const MAX_DECODING_ROUNDS = 8;
const REPLACEMENT = '[token]';

/** What one decoding round reads: a run of percent escapes, `\/`, `\uXXXX`, `&#NN;`, `&#xHH;`. */
const ESCAPE = /(?:%[0-9A-Fa-f]{2})+|\\\/|\\u[0-9A-Fa-f]{4}|&#[0-9]{1,7};|&#[xX][0-9A-Fa-f]{1,6};/g;

/** A text and, for each of its UTF-16 code units, the stretch `[start, end)` of the original text it decodes. Absent arrays: the original itself. */
interface Stage {
  text: string;
  start?: Int32Array;
  end?: Int32Array;
}

const utf8 = new TextDecoder('utf-8');

/** Whether the text holds the token, in any of the forms above. */
export function containsToken(text: string, token: string | undefined): boolean {
  return token !== undefined && token !== '' && tokenSpans(text, token, true).length > 0;
}

/** The text with every occurrence of the token, in any of the forms above, replaced by `[token]`. */
export function scrubToken(text: string, token: string | undefined): string {
  if (token === undefined || token === '') return text;
  let scrubbed = text;
  for (let round = 0; round < 3; round += 1) {
    const spans = tokenSpans(scrubbed, token, false);
    if (spans.length === 0) return scrubbed;
    let result = '';
    let at = 0;
    for (const [from, to] of spans) {
      result += `${scrubbed.slice(at, from)}${REPLACEMENT}`;
      at = to;
    }
    scrubbed = result + scrubbed.slice(at);
  }
  // Replacing never makes a new occurrence; should it ever, nothing of the text is kept.
  return containsToken(scrubbed, token) ? REPLACEMENT : scrubbed;
}

/** The text scrubbed of each token. */
export function scrubTokens(text: string, tokens: readonly (string | undefined)[]): string {
  return [...new Set(tokens)].reduce<string>((scrubbed, token) => scrubToken(scrubbed, token), text);
}

/** Whether an answer holds the token in its body or one of its recorded headers. */
export function exchangeContainsToken(exchange: Exchange, token: string | undefined): boolean {
  return containsToken(exchange.bodyText, token) || Object.values(exchange.headers).some((value) => containsToken(value, token));
}

/** An answer with each token scrubbed from its body and headers (what the diff compares and prints). */
export function scrubExchange<T extends Exchange>(exchange: T, tokens: readonly (string | undefined)[]): T {
  const headers = Object.fromEntries(Object.entries(exchange.headers).map(([name, value]) => [name, scrubTokens(value, tokens)]));
  return { ...exchange, headers, bodyText: scrubTokens(exchange.bodyText, tokens) };
}

/** The stretches of the original text that hold the token (sorted, merged); with `firstOnly`, at most one. */
function tokenSpans(text: string, token: string, firstOnly: boolean): [number, number][] {
  // The token itself decoded too, should it be written with escapes of its own.
  const needles = [...new Set(decodingStages({ text: token }).map((stage) => stage.text))].filter((needle) => needle !== '');
  const spans: [number, number][] = [];
  for (const stage of decodingStages({ text })) {
    for (const needle of needles) {
      for (let at = stage.text.indexOf(needle); at >= 0; at = stage.text.indexOf(needle, at + 1)) {
        const last = at + needle.length - 1;
        spans.push([stage.start ? stage.start[at]! : at, stage.end ? stage.end[last]! : last + 1]);
        if (firstOnly) return spans;
      }
    }
  }
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const span of spans) {
    const previous = merged.at(-1);
    if (previous && span[0] <= previous[1]) previous[1] = Math.max(previous[1], span[1]);
    else merged.push([span[0], span[1]]);
  }
  return merged;
}

/** The text, then the text after each decoding round until nothing changes (bounded). */
function decodingStages(first: Stage): Stage[] {
  const stages = [first];
  for (let round = 0; round < MAX_DECODING_ROUNDS; round += 1) {
    const next = decodeRound(stages.at(-1)!);
    if (next === undefined) break;
    stages.push(next);
  }
  return stages;
}

/** One round of decoding; `undefined` when the text holds no escape. */
function decodeRound(stage: Stage): Stage | undefined {
  const { text } = stage;
  ESCAPE.lastIndex = 0;
  if (!ESCAPE.test(text)) return undefined;
  const startOf = (index: number) => (stage.start ? stage.start[index]! : index);
  const endOf = (index: number) => (stage.end ? stage.end[index]! : index + 1);
  // Decoding never lengthens a text: every escape is longer than what it stands for.
  const start = new Int32Array(text.length);
  const end = new Int32Array(text.length);
  const parts: string[] = [];
  let length = 0;
  let copied = 0;
  const copyUpTo = (to: number) => {
    parts.push(text.slice(copied, to));
    for (let index = copied; index < to; index += 1, length += 1) {
      start[length] = startOf(index);
      end[length] = endOf(index);
    }
    copied = to;
  };
  /** `decoded` stands for the source code units `[from, to)` of this stage. */
  const emit = (decoded: string, from: number, to: number) => {
    copyUpTo(from);
    parts.push(decoded);
    for (let index = 0; index < decoded.length; index += 1, length += 1) {
      start[length] = startOf(from);
      end[length] = endOf(to - 1);
    }
    copied = to;
  };
  ESCAPE.lastIndex = 0;
  for (let match = ESCAPE.exec(text); match !== null; match = ESCAPE.exec(text)) {
    const [sequence] = match;
    const at = match.index;
    if (sequence.startsWith('%')) decodePercentRun(sequence, at, emit);
    else if (sequence === '\\/') emit('/', at, at + 2);
    else if (sequence.startsWith('\\u')) emit(String.fromCharCode(Number.parseInt(sequence.slice(2), 16)), at, at + sequence.length);
    else {
      const code = sequence[2] === 'x' || sequence[2] === 'X' ? Number.parseInt(sequence.slice(3, -1), 16) : Number.parseInt(sequence.slice(2, -1), 10);
      emit(code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd', at, at + sequence.length);
    }
  }
  copyUpTo(text.length);
  return { text: parts.join(''), start: start.subarray(0, length), end: end.subarray(0, length) };
}

/** A run of `%XX` escapes: ASCII bytes one by one, other bytes decoded together as UTF-8. */
function decodePercentRun(run: string, at: number, emit: (decoded: string, from: number, to: number) => void): void {
  const bytes = Array.from({ length: run.length / 3 }, (_, index) => Number.parseInt(run.slice(index * 3 + 1, index * 3 + 3), 16));
  let index = 0;
  while (index < bytes.length) {
    if (bytes[index]! < 0x80) {
      emit(String.fromCharCode(bytes[index]!), at + index * 3, at + index * 3 + 3);
      index += 1;
      continue;
    }
    let stop = index;
    while (stop < bytes.length && bytes[stop]! >= 0x80) stop += 1;
    emit(utf8.decode(Uint8Array.from(bytes.slice(index, stop))), at + index * 3, at + stop * 3);
    index = stop;
  }
}
