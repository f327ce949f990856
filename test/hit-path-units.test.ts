/**
 * The pieces of the hit path on their own: the raw query read as URLSearchParams and callerToken
 * read it, the memo of validated requests, stored bodies as bytes (the ETag they always had, a fresh
 * id in each copy, the stored bytes never changed), and the pooled buffers of hit bodies.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BodyBuffers, type WrittenSignal } from '../src/cache/body-buffers.ts';
import { renderBody, storedBody } from '../src/cache/cache-key.ts';
import { nodeHashing } from '../src/entry/node/cache/node-hashing.ts';
import { callerToken } from '../src/access/token-policy.ts';
import { readRawQuery } from '../src/pipeline/raw-query.ts';
import { MAX_REMEMBERED_KEY_LENGTH, ValidatedRequests } from '../src/pipeline/validated-requests.ts';

const decoder = new TextDecoder();

/** What the token and the rest of the query are, read the slow way. */
function expected(raw: string, authorization?: string): { token?: string; rest: [string, string][]; error?: string } {
  const query = new URLSearchParams(raw);
  try {
    const token = callerToken(query, authorization);
    return { token, rest: [...query].filter(([name]) => name !== 'access_token') };
  } catch (error) {
    return { rest: [], error: (error as { code?: string }).code };
  }
}

describe('readRawQuery', () => {
  const queries = [
    '',
    'patient=1',
    'patient=1&access_token=abcdefgh12',
    'access_token=abcdefgh12&patient=1&date=ge2020-01-01&date=le2021-01-01',
    'patient=1&access_token=a%2Bb',
    'patient=1&access_token=a+b',
    'patient=1&access_%74oken=abcdefgh12',
    '&&patient=1&&',
    'a=b=c&access_token=x=',
    'patient=%31&access_token=abcdefgh12',
    'access_token=t1&access_token=t2',
    'patient',
    'access_token',
    'access_token=&patient=2',
    'code=a|b&access_token=tok.en~_-',
    // A URL with `??`: URLSearchParams drops one leading `?`.
    '?access_token=abcdefgh12&patient=1',
    '?access_token=t1&access_token=t2',
    '??access_token=abcdefgh12',
  ];
  it.each(queries)('reads %j as URLSearchParams and callerToken do', (raw) => {
    for (const authorization of [undefined, 'Bearer abcdefgh12', 'Bearer other-token', 'Basic x']) {
      const slow = expected(raw, authorization);
      let fast: { token?: string; rest: [string, string][]; error?: string };
      try {
        const read = readRawQuery(raw, authorization);
        fast = { token: read.token, rest: [...new URLSearchParams(read.rest)] };
      } catch (error) {
        fast = { rest: [], error: (error as { code?: string }).code };
      }
      expect(fast, `${raw} with ${authorization}`).toEqual(slow);
    }
  });

  it('never keeps the token in the rest of the query', () => {
    expect(readRawQuery('patient=1&access_token=secret-token-1', undefined).rest).toBe('patient=1');
    expect(readRawQuery('patient=1&access_token=secret%2Dtoken-1', undefined).rest).toBe('patient=1');
  });
});

describe('ValidatedRequests', () => {
  it('names requests so that no id can run into the query', () => {
    expect(ValidatedRequests.keyOf('c', 'R', 'a|b', 'x')).not.toBe(ValidatedRequests.keyOf('c', 'R', 'a', 'b|x'));
    expect(ValidatedRequests.keyOf('c', 'R', undefined, '1:')).not.toBe(ValidatedRequests.keyOf('c', 'R', '', ''));
  });

  it('stays bounded and keeps what is asked again', () => {
    const memo = new ValidatedRequests();
    const entry = (n: number) => ({ prepared: {} as never, caller: 'c', cacheKey: `k${n}` });
    memo.remember('hot', entry(0));
    for (let n = 1; n < 5000; n += 1) {
      memo.remember(`cold-${n}`, entry(n));
      if (n % 1000 === 0) expect(memo.get('hot')?.cacheKey).toBe('k0');
    }
    expect(memo.get('cold-1')).toBeUndefined();
  });

  it('does not remember a request with a long query (its bytes would be bounded by the URL limit only)', () => {
    const memo = new ValidatedRequests();
    const entry = { prepared: {} as never, caller: 'c', cacheKey: 'k' };
    const longest = 'x'.repeat(MAX_REMEMBERED_KEY_LENGTH);
    memo.remember(longest, entry);
    memo.remember(`${longest}x`, entry);
    expect(memo.get(longest)).toBe(entry);
    expect(memo.get(`${longest}x`)).toBeUndefined();
  });
});

describe('stored bodies as bytes', () => {
  const hashing = nodeHashing();
  /** The ETag as it was computed before bodies were bytes: SHA-1 of the text less its Bundle id. */
  const oldEtag = (text: string) => `W/"${createHash('sha1').update(text).digest('base64url')}"`;

  it('keep the ETag they had as text, with the id or without one', async () => {
    const bundle = JSON.stringify({ resourceType: 'Bundle', id: 'f'.repeat(32), type: 'searchset', entry: [{ resource: { note: 'é → ✓ 😀' } }] });
    const stored = await storedBody(bundle, hashing.digest);
    expect(stored.etag).toBe(oldEtag(bundle.replace('f'.repeat(32), '')));
    const record = JSON.stringify({ resourceType: 'Encounter', id: '1', note: 'ü' });
    expect((await storedBody(record, hashing.digest)).etag).toBe(oldEtag(record));
  });

  it('send a copy with a fresh id; the stored bytes never change', async () => {
    const bundle = JSON.stringify({ resourceType: 'Bundle', id: '0'.repeat(32), total: 1, note: 'ä' });
    const stored = await storedBody(bundle, hashing.digest);
    const before = decoder.decode(stored.bytes);
    const first = decoder.decode(renderBody(stored, () => 'a'.repeat(32)));
    const second = decoder.decode(renderBody(stored, () => 'short-id'));
    const wide = decoder.decode(renderBody(stored, () => 'é'.repeat(32)));
    expect(first).toBe(bundle.replace('0'.repeat(32), 'a'.repeat(32)));
    expect(second).toBe(bundle.replace('0'.repeat(32), 'short-id'));
    expect(wide).toBe(bundle.replace('0'.repeat(32), 'é'.repeat(32)));
    expect(decoder.decode(stored.bytes)).toBe(before);
  });

  it('without a Bundle id, send the stored bytes themselves', async () => {
    const stored = await storedBody('[{"a":1}]', hashing.digest);
    expect(renderBody(stored, () => 'unused')).toBe(stored.bytes);
  });
});

describe('BodyBuffers', () => {
  /** A response that says it has been written when told to. */
  function response(): WrittenSignal & { written(): void } {
    let listener: (() => void) | undefined;
    return { once: (_event, callback) => (listener = callback), written: () => listener?.() };
  }

  it('uses a buffer again only once its response has been written', () => {
    const buffers = new BodyBuffers();
    const first = response();
    const a = buffers.take(20_000, first);
    const b = buffers.take(20_000, response());
    expect(a.buffer).not.toBe(b.buffer);
    expect(a.byteLength).toBe(20_000);
    first.written();
    expect(buffers.take(20_000, response()).buffer).toBe(a.buffer);
  });

  it('allocates where nothing says when a response is written, and keeps at most its bound idle', () => {
    const buffers = new BodyBuffers(64 * 1024);
    expect(buffers.take(10_000, undefined).byteLength).toBe(10_000);
    const responses = Array.from({ length: 4 }, () => response());
    for (const each of responses) buffers.take(30_000, each);
    for (const each of responses) each.written();
    expect(buffers.idleBytes).toBeLessThanOrEqual(64 * 1024);
  });
});
