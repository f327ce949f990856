/**
 * Every error code of the catalog (src/errors.ts) is documented in docs/errors.md with its status
 * and FHIR issue code, and answered by the service where the document says, asserted by its code
 * (`details.text`) — here, or in the test of its feature (service mode, resilience, readiness).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { ERROR_CATALOG, type ErrorCode } from '../src/errors.ts';
import { ROUTES } from '../src/routes.ts';
import { FhirClient } from '../src/upstream/fhir-client.ts';
import { fetchTransport } from '../src/upstream/transport.ts';
import { sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';
import { expectErrorCode } from './support/outcome-code.ts';
import { ROOT } from './support/service-process.ts';

const CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

describe('docs/errors.md', () => {
  const rows = new Map(
    [...readFileSync(join(ROOT, 'docs/errors.md'), 'utf8').matchAll(/^\| `([a-z-]+)` \| (\d{3}) \| ([a-z-]+) \|/gm)].map((match) => [
      match[1]!,
      { status: Number(match[2]), issue: match[3] },
    ]),
  );

  it('documents every code of the catalog with its status and FHIR issue code, and no other', () => {
    expect([...rows.keys()].sort()).toEqual([...CODES].sort());
    for (const code of CODES) expect(rows.get(code), code).toEqual({ status: ERROR_CATALOG[code].status, issue: ERROR_CATALOG[code].issue });
  });
});

describe('every code is asserted as the code of an answer in some test', () => {
  const testFiles = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? testFiles(join(dir, name)) : name.endsWith('.ts') ? [join(dir, name)] : []));
  // Lines that assert an answer's code: expectErrorCode(…, 'code'), details: { text: 'code' }, or `answered` (a test's name for it).
  const assertingLines = testFiles(join(ROOT, 'test'))
    .flatMap((file) => readFileSync(file, 'utf8').split('\n'))
    .filter((line) => /expectErrorCode\(|details|answered/.test(line));

  it.each(CODES)('%s', (code) => {
    expect(
      assertingLines.some((line) => line.includes(`'${code}'`)),
      `no test asserts an answer with the code ${code}`,
    ).toBe(true);
  });
});

describe('the codes of the caller side and of the upstream', () => {
  let upstream: CannedUpstream;
  let service: TestService;
  /** What the canned upstream answers next (undefined: nothing, ever); by default no record, to a read or a search. */
  const nothingFound = (url: string) =>
    /\/DiagnosticReport\/[^/?]+$/.test(url.split('?')[0]!)
      ? { status: 404, body: { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-found' }] } }
      : { status: 200, body: { resourceType: 'Bundle', type: 'searchset', entry: [] } };
  let answer: (url: string) => { status: number; body: unknown } | undefined = nothingFound;
  const report = (id: string) => ({ resource: { resourceType: 'DiagnosticReport', id, status: 'final', code: { text: 'x' } }, search: { mode: 'match' } });

  beforeAll(async () => {
    upstream = await startCannedUpstream((request, response) => {
      const next = answer(request.url);
      if (next) sendJson(response, next.status, next.body);
    });
    service = await startTestService({
      UPSTREAM_URL: `${upstream.origin}/fhir`,
      CACHE_ENABLED: 'false',
      UPSTREAM_MAX_PAGES: '2',
      UPSTREAM_MAX_ATTEMPTS: '1',
      UPSTREAM_MAX_BODY_BYTES: '2048',
      UPSTREAM_TIMEOUT_MS: '1000',
    });
  });
  afterAll(async () => {
    await service?.close();
    await upstream?.close();
  });

  const get = (path: string, init?: RequestInit) => service.get(path, init);
  const REPORTS = '/api/DiagnosticReport?patient=1&access_token=token-1';

  it('the request: bad-parameter, unknown-path, method-not-allowed, uri-too-long, payload-too-large, unsupported-media-type', async () => {
    await expectErrorCode(await get('/api/DiagnosticReport?patient=1&start_date=2024-13-45&access_token=token-1'), 400, 'bad-parameter');
    await expectErrorCode(await get('/no/such/operation'), 404, 'unknown-path');
    await expectErrorCode(await get('/api/DiagnosticReport', { method: 'DELETE' }), 405, 'method-not-allowed');
    await expectErrorCode(await get(`/api/DiagnosticReport?patient=1&code=${'x'.repeat(9000)}`), 414, 'uri-too-long');
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const tooLarge: RequestInit = { method: 'POST', headers: form, body: `patient=1&code=${'x'.repeat(70_000)}` };
    await expectErrorCode(await get('/api/DiagnosticReport/_search', tooLarge), 413, 'payload-too-large');
    const json: RequestInit = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };
    await expectErrorCode(await get('/api/DiagnosticReport/_search', json), 415, 'unsupported-media-type');
  });

  it('what Node refuses before the app: bad-request, headers-too-large', async () => {
    const { port } = new URL(service.url);
    const raw = (text: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(text));
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString()));
        socket.on('close', () => resolve(received));
        socket.on('error', () => resolve(received));
      });
    const answered = (response: string) => ({
      status: response.split(' ')[1],
      code: (JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { issue: { details: { text: string } }[] }).issue[0]!.details.text,
    });
    expect(answered(await raw('NOT A REQUEST\r\n\r\n'))).toEqual({ status: '400', code: 'bad-request' });
    const bigHeader = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(200_000)}\r\n\r\n`;
    expect(answered(await raw(bigHeader))).toEqual({ status: '431', code: 'headers-too-large' });
  });

  it('the token: unauthorized, bad-token, forbidden; a record that is not there: not-found', async () => {
    await expectErrorCode(await get('/api/DiagnosticReport/17'), 401, 'unauthorized');
    await expectErrorCode(await get('/api/DiagnosticReport?patient=1&access_token=not%20a%20token'), 401, 'bad-token');
    await expectErrorCode(await get('/api/Immunization?patient=1'), 403, 'forbidden');
    await expectErrorCode(await get('/api/DiagnosticReport/17?access_token=token-1'), 404, 'not-found');
  });

  it('the upstream refusing the token or access: upstream-refused-token, upstream-denied', async () => {
    answer = () => ({ status: 401, body: { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'login' }] } });
    await expectErrorCode(await get(REPORTS), 401, 'upstream-refused-token');
    answer = () => ({ status: 403, body: { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'forbidden' }] } });
    await expectErrorCode(await get(REPORTS), 403, 'upstream-denied');
    answer = nothingFound;
  });

  it('the upstream failing: upstream-error, -too-many-pages, -throttled, -bad-body, -too-large, -timeout', async () => {
    answer = () => ({ status: 500, body: {} });
    await expectErrorCode(await get(REPORTS), 502, 'upstream-error');
    answer = (url) => ({
      status: 200,
      body: {
        resourceType: 'Bundle',
        type: 'searchset',
        entry: [report(`r${Math.random()}`)],
        link: [
          { relation: 'next', url: `${upstream.origin}/fhir/DiagnosticReport?page=${Number(new URL(url, upstream.origin).searchParams.get('page') ?? 0) + 1}` },
        ],
      },
    });
    await expectErrorCode(await get(REPORTS), 502, 'upstream-too-many-pages');
    answer = () => ({ status: 429, body: {} });
    await expectErrorCode(await get(REPORTS), 503, 'upstream-throttled');
    answer = () => ({ status: 200, body: { resourceType: 'Bundle', type: 'searchset', entry: { not: 'a list' } } });
    await expectErrorCode(await get(REPORTS), 502, 'upstream-bad-body');
    answer = () => ({ status: 200, body: { resourceType: 'Bundle', type: 'searchset', entry: [report('big')], pad: 'x'.repeat(4000) } });
    await expectErrorCode(await get(REPORTS), 502, 'upstream-too-large');
    answer = () => undefined;
    await expectErrorCode(await get(REPORTS), 504, 'upstream-timeout');
    answer = nothingFound;
  });
});

describe('a bug in the service', () => {
  it('is internal: 500, with no detail of what was thrown', async () => {
    const upstream = await startCannedUpstream((_request, response) =>
      sendJson(response, 200, {
        resourceType: 'Bundle',
        type: 'searchset',
        entry: [{ resource: { resourceType: 'DiagnosticReport', id: 'r1' }, search: { mode: 'match' } }],
      }),
    );
    try {
      const route = ROUTES.find((each) => each.name === 'DiagnosticReport.search')!;
      const broken = {
        ...route,
        shape: {
          ...route.shape,
          map: () => {
            throw new TypeError('a mapper bug with a secret-looking detail');
          },
        },
      };
      const client = new FhirClient({
        baseUrl: `${upstream.origin}/fhir`,
        transport: fetchTransport(),
        timeoutMs: 5000,
        maxPages: 10,
        pageSize: 100,
        maxBodyBytes: 1_000_000,
      });
      const response = await createApp({ client, routes: [broken] }).request('/api/DiagnosticReport?patient=1&access_token=token-1');
      const text = await response.clone().text();
      expect(text).not.toContain('secret-looking');
      await expectErrorCode(response, 500, 'internal');
    } finally {
      await upstream.close();
    }
  });
});
