/**
 * Compressed upstream answers: the service asks for gzip, deflate and br, decodes each to the same
 * legacy answer as a plain one, refuses codings it cannot decode and corrupt data with a 502 that
 * names the cause, and bounds the DECODED size: a decompression bomb is a 502 read only as far as
 * the bound (the decoding is pulled by the reader, so the rest of the bomb is never inflated).
 */
import type { ServerResponse } from 'node:http';
import { getDefaultHighWaterMark, Readable } from 'node:stream';
import { brotliCompressSync, constants, createBrotliCompress, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodedBody } from '../src/entry/node/upstream/node-decoding.ts';
import { readLimited } from '../src/ports/bounded-body.ts';
import { drainedOrClosed, page, sendJson, startCannedUpstream, type CannedHandler, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const MAX_BODY_BYTES = 1024 * 1024;
const PATH = '/api/DiagnosticReport?patient=1';
const REPORTS = Array.from({ length: 60 }, (_, index) => ({
  resourceType: 'DiagnosticReport',
  id: `r${index}`,
  status: 'final',
  code: { coding: [{ system: 'http://loinc.org', code: `${index}-0`, display: `Panel ${index}` }] },
  subject: { reference: 'Patient/1' },
  effectiveDateTime: '2024-03-01T10:00:00Z',
}));
const PLAIN = Buffer.from(JSON.stringify(page(REPORTS)));

/** One gzip member of 1 MiB of zeros (about 1 KB); members concatenated are one valid gzip body. */
const ZEROS_MEMBER = gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });

function sendEncoded(res: ServerResponse, encoding: string, body: Buffer): void {
  res.writeHead(200, { 'content-type': 'application/fhir+json', 'content-encoding': encoding, 'content-length': body.length });
  res.end(body);
}

let upstream: CannedUpstream;
let service: TestService;

beforeAll(async () => {
  upstream = await startCannedUpstream((_, res) => sendJson(res, 200, page(REPORTS)));
  service = await startTestService({
    UPSTREAM_URL: `${upstream.origin}/fhir`,
    CACHE_ENABLED: 'false',
    UPSTREAM_MAX_BODY_BYTES: String(MAX_BODY_BYTES),
    UPSTREAM_TIMEOUT_MS: '10000',
  });
});
afterAll(async () => {
  await service?.close();
  await upstream?.close();
});

/** The legacy body without its per-response Bundle id. */
async function legacyBody(response: Response): Promise<string> {
  expect(response.status).toBe(200);
  return (await response.text()).replace(/^\{"resourceType":"Bundle","id":"[^"]+"/, '{"resourceType":"Bundle","id":""');
}

async function failureCause(response: Response): Promise<{ status: number; issue: string | undefined; cause: string | undefined }> {
  const body = (await response.json()) as { issue: { code: string }[] };
  const requestId = response.headers.get('x-request-id');
  const line = service.logLines
    .map((text) => JSON.parse(text) as { message: string; requestId: string; cause?: string })
    .find((entry) => entry.message === 'request failed' && entry.requestId === requestId);
  return { status: response.status, issue: body.issue[0]?.code, cause: line?.cause };
}

describe('a compressed upstream answer', () => {
  it('is asked for: every upstream request accepts gzip, deflate and br', async () => {
    upstream.setHandler((_, res) => sendJson(res, 200, page(REPORTS)));
    upstream.received.length = 0;
    await legacyBody(await service.get(PATH));
    expect(upstream.received[0]?.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  const encodings: [string, (body: Buffer) => Buffer][] = [
    ['gzip', (body) => gzipSync(body)],
    ['x-gzip', (body) => gzipSync(body)],
    ['deflate', (body) => deflateSync(body)],
    ['br', (body) => brotliCompressSync(body)],
    ['gzip, br', (body) => brotliCompressSync(gzipSync(body))],
  ];
  it.each(encodings)('in %s is decoded and mapped exactly as the plain answer', async (encoding, encode) => {
    upstream.setHandler((_, res) => sendJson(res, 200, page(REPORTS)));
    const plain = await legacyBody(await service.get(PATH));
    expect(plain).toContain('Panel 59');
    const encoded = encode(PLAIN);
    expect(encoded.length).toBeLessThan(PLAIN.length / 3);
    upstream.setHandler((_, res) => sendEncoded(res, encoding, encoded));
    expect(await legacyBody(await service.get(PATH))).toBe(plain);
  });

  it('in a coding the service cannot decode is a 502 whose log names the cause', async () => {
    upstream.setHandler((_, res) => sendEncoded(res, 'zstd', PLAIN));
    expect(await failureCause(await service.get(PATH))).toEqual({ status: 502, issue: 'invalid', cause: 'unknown-encoding' });
  });

  it.each([
    ['corrupt', (res: ServerResponse) => sendEncoded(res, 'gzip', Buffer.from('this is not gzip at all'))],
    ['truncated', (res: ServerResponse) => sendEncoded(res, 'br', brotliCompressSync(PLAIN).subarray(0, 200))],
  ])('that is %s is a 502 (bad-encoding), never a shortened answer', async (_, send) => {
    upstream.setHandler((__, res) => send(res));
    expect(await failureCause(await service.get(PATH))).toEqual({ status: 502, issue: 'invalid', cause: 'bad-encoding' });
  });
});

describe('a decompression bomb', () => {
  /** The bomb as the upstream streams it: `members` gzip members, each 1 MiB decoded. */
  const gzipBomb =
    (members: number): CannedHandler =>
    async (_, res) => {
      res.writeHead(200, { 'content-type': 'application/fhir+json', 'content-encoding': 'gzip' });
      for (let index = 0; index < members && !res.destroyed; index += 1) {
        if (!res.write(ZEROS_MEMBER)) await drainedOrClosed(res);
      }
      res.end();
    };

  it('of 1 GiB in 1 MB of gzip is a 502 (too-large), and memory stays far below the decoded size', async () => {
    upstream.setHandler(gzipBomb(1024));
    const peakBefore = process.resourceUsage().maxRSS;
    expect(await failureCause(await service.get(PATH))).toEqual({ status: 502, issue: 'too-costly', cause: 'too-large' });
    // maxRSS (KiB) is the process's peak: had the body been inflated whole it would have grown by 1 GiB.
    const grownMiB = (process.resourceUsage().maxRSS - peakBefore) / 1024;
    expect(grownMiB).toBeLessThan(128);
    upstream.setHandler((_, res) => sendJson(res, 200, page(REPORTS)));
    expect((await service.get(PATH)).status).toBe(200);
  });

  it('in brotli (64 MiB in ~12 KB) is a 502 (too-large) too', async () => {
    const compressor = createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
    const zeros = Buffer.alloc(1024 * 1024);
    const written = (async () => {
      for (let index = 0; index < 64; index += 1) if (!compressor.write(zeros)) await new Promise((resolve) => compressor.once('drain', resolve));
      compressor.end();
    })();
    const bomb = Buffer.concat(await compressor.toArray());
    await written;
    upstream.setHandler((_, res) => sendEncoded(res, 'br', bomb));
    expect(await failureCause(await service.get(PATH))).toEqual({ status: 502, issue: 'too-costly', cause: 'too-large' });
  });

  it('is inflated only as far as the reader reads: the compressed input pulled stops near the bound', async () => {
    const members = 256; // 256 MiB decoded
    let pulled = 0;
    const source = Readable.from(
      (function* () {
        for (let index = 0; index < members; index += 1) {
          pulled += 1;
          yield ZEROS_MEMBER;
        }
      })(),
    );
    await expect(readLimited(decodedBody(source, 'gzip'), 0, MAX_BODY_BYTES)).rejects.toMatchObject({ code: 'upstream-too-large' });
    // 1 MiB decoded is about one member; the rest is what the decoder's input buffer holds, whose
    // size is Node's default (16 KiB on Node 20, 64 KiB from Node 22): about 16 or 63 members.
    const buffered = Math.ceil(getDefaultHighWaterMark(false) / ZEROS_MEMBER.length);
    expect(pulled).toBeLessThanOrEqual(buffered + 4);
    expect(buffered + 4).toBeLessThan(members / 2);
  });
});
