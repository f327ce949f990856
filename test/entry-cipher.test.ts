/**
 * Naming and sealing of shared-tier entries, on both implementations (Web Crypto's EntryCipher, used
 * in workerd, and Node's native one): each keeps an entry to the token and name it was sealed for,
 * they give the same names and read each other's entries, and tokens longer than HKDF's 1,024-byte
 * info (long JWTs) are sealed like any other.
 */
import { describe, expect, it } from 'vitest';
import { EntryCipher, type EntrySealing } from '../src/cache/entry-cipher.ts';
import { nodeEntryCipher } from '../src/entry/node/cache/node-entry-cipher.ts';

const SECRET = 'unit-test-cache-secret-0123456789abcdef';
const KEY = 'callerhash|DiagnosticReport.search|patient=123';
const bytes = (text: string) => new TextEncoder().encode(text);
/** A token as long as a JWT with many claims: past the 1,024 bytes HKDF's info may hold. */
const LONG_TOKEN = `eyJhbGciOiJSUzI1NiJ9.${'x'.repeat(3000)}.signature`;

const implementations: [string, (secret: string) => EntrySealing][] = [
  ['Web Crypto', (secret) => new EntryCipher(secret)],
  ['Node native', nodeEntryCipher],
];

describe.each(implementations)('entry sealing (%s)', (_name, sealingFor) => {
  const cipher = sealingFor(SECRET);

  it('opens an entry only with the token it was sealed for, under the name it was sealed under', async () => {
    const name = await cipher.nameOf(KEY);
    const sealed = await cipher.seal('token-a', name, bytes('patient data'));
    expect(new TextDecoder().decode(await cipher.open('token-a', name, sealed))).toBe('patient data');
    expect(await cipher.open('token-b', name, sealed)).toBeUndefined();
    expect(await cipher.open(undefined, name, sealed)).toBeUndefined();
    expect(await cipher.open('token-a', await cipher.nameOf(`${KEY}x`), sealed)).toBeUndefined();
    expect(await sealingFor(`${SECRET}-other`).open('token-a', name, sealed)).toBeUndefined();
    const tampered = sealed.slice();
    tampered[tampered.length - 1]! ^= 1;
    expect(await cipher.open('token-a', name, tampered)).toBeUndefined();
    expect(await cipher.open('token-a', name, bytes('not sealed at all'))).toBeUndefined();
  });

  it('seals callers without a token apart from every token, and never twice alike', async () => {
    const name = await cipher.nameOf(KEY);
    const first = await cipher.seal(undefined, name, bytes('x'));
    expect(await cipher.open(undefined, name, first)).toEqual(bytes('x'));
    expect(await cipher.open('anonymous', name, first)).toBeUndefined();
    expect(await cipher.seal(undefined, name, bytes('x'))).not.toEqual(first); // a fresh IV each time
  });

  it('seals for a token longer than 1,024 bytes, and keeps it from a token that differs in its last byte', async () => {
    const name = await cipher.nameOf(KEY);
    const sealed = await cipher.seal(LONG_TOKEN, name, bytes('patient data'));
    expect(await cipher.open(LONG_TOKEN, name, sealed)).toEqual(bytes('patient data'));
    expect(await cipher.open(`${LONG_TOKEN.slice(0, -1)}X`, name, sealed)).toBeUndefined();
  });

  it('names entries by keyed hash: the same on every instance with the secret, revealing nothing of the key', async () => {
    const name = await cipher.nameOf(KEY);
    expect(name).toMatch(/^crrs-facade:v2:[A-Za-z0-9_-]{43}$/);
    expect(await sealingFor(SECRET).nameOf(KEY)).toBe(name);
    expect(await sealingFor(`${SECRET}-other`).nameOf(KEY)).not.toBe(name);
    expect(name).not.toContain('123');
  });
});

describe('Web Crypto and Node native sealing together', () => {
  const web = new EntryCipher(SECRET);
  const node = nodeEntryCipher(SECRET);

  it("give the same names and read each other's entries, for a caller with a token, a long one, and none", async () => {
    const name = await web.nameOf(KEY);
    expect(node.nameOf(KEY)).toBe(name);
    const body = bytes('{"resourceType":"Bundle","entry":[{"name":"Zoë"}]}');
    for (const token of ['token-a', LONG_TOKEN, undefined]) {
      expect(await node.open(token, name, await web.seal(token, name, body))).toEqual(body);
      expect(await web.open(token, name, await node.seal(token, name, body))).toEqual(body);
      expect(await web.open('token-b', name, await node.seal(token, name, body))).toBeUndefined();
    }
  });
});
