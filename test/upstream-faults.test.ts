/**
 * Upstream faults: each is answered with the right status and an OperationOutcome, never an empty
 * 200 or a crash, and the service keeps serving afterwards. A second server on another port plays a
 * foreign site that redirects and next links point at: it must never receive a request.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { page, sendJson, startCannedUpstream, type CannedHandler, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const REPORT = { resourceType: 'DiagnosticReport', id: 'r1', status: 'final', subject: { reference: 'Patient/1' } };
const healthy: CannedHandler = (_, res) => sendJson(res, 200, page([REPORT]));

let upstream: CannedUpstream;
let foreign: CannedUpstream;
let service: TestService;

// The cache is off: these tests send the same request to a changing upstream on purpose.
beforeAll(async () => {
  upstream = await startCannedUpstream(healthy);
  foreign = await startCannedUpstream(healthy);
  service = await startTestService({
    UPSTREAM_URL: `${upstream.origin}/fhir`,
    UPSTREAM_TIMEOUT_MS: '400',
    UPSTREAM_MAX_PAGES: '5',
    UPSTREAM_MAX_BODY_BYTES: '100000',
    CACHE_ENABLED: 'false',
  });
});
afterAll(async () => {
  await service?.close();
  await upstream?.close();
  await foreign?.close();
});

interface Outcome {
  resourceType: string;
  issue: { severity: string; code: string; diagnostics: string }[];
}

async function expectOutcome(response: Response, status: number, issueCode: string): Promise<Outcome> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/json');
  const body = (await response.json()) as Outcome;
  expect(body.resourceType).toBe('OperationOutcome');
  expect(body.issue[0]?.code).toBe(issueCode);
  return body;
}

const faults: { name: string; handler: CannedHandler; status: number; issue: string }[] = [
  { name: 'answering 500', handler: (_, res) => sendJson(res, 500, { resourceType: 'OperationOutcome' }), status: 502, issue: 'transient' },
  {
    name: 'answering non-JSON',
    handler: (_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>Bad gateway</html>');
    },
    status: 502,
    issue: 'invalid',
  },
  { name: 'answering JSON that is not a Bundle', handler: (_, res) => sendJson(res, 200, { hello: 'world' }), status: 502, issue: 'invalid' },
  { name: 'slow beyond the timeout', handler: (_, res) => void setTimeout(() => sendJson(res, 200, page([REPORT])), 1500), status: 504, issue: 'timeout' },
  {
    name: 'trickling its body past the timeout',
    handler: (_, res) => {
      res.writeHead(200, { 'content-type': 'application/fhir+json' });
      res.write('{"resourceType":"Bundle","type":"searchset","entry":[');
      setTimeout(() => (res.destroyed ? undefined : res.end(']}')), 1500);
    },
    status: 504,
    issue: 'timeout',
  },
  {
    name: 'sending a body larger than the limit',
    handler: (_, res) => sendJson(res, 200, page(Array.from({ length: 2000 }, (_, i) => ({ ...REPORT, id: `r${i}` })))),
    status: 502,
    issue: 'too-costly',
  },
  {
    name: 'sending a chunked body larger than the limit',
    handler: (_, res) => {
      res.writeHead(200, { 'content-type': 'application/fhir+json' });
      for (let i = 0; i < 200; i += 1) res.write(' '.repeat(1024));
      res.end(JSON.stringify(page([REPORT])));
    },
    status: 502,
    issue: 'too-costly',
  },
  {
    name: 'redirecting to another URL',
    handler: (_, res) => {
      res.writeHead(302, { location: `${foreign.origin}/fhir/DiagnosticReport?patient=Patient%2F1` });
      res.end();
    },
    status: 502,
    issue: 'transient',
  },
  {
    name: 'reporting that it ignored a search parameter',
    handler: (_, res) =>
      sendJson(res, 200, {
        ...page([REPORT]),
        entry: [
          { resource: REPORT, search: { mode: 'match' } },
          {
            resource: {
              resourceType: 'OperationOutcome',
              issue: [{ severity: 'warning', code: 'not-supported', diagnostics: 'Unknown search parameter "code"' }],
            },
            search: { mode: 'outcome' },
          },
        ],
      }),
    status: 502,
    issue: 'processing',
  },
  { name: 'dropping the connection', handler: (_, res) => res.destroy(), status: 502, issue: 'transient' },
  {
    name: 'sending a next link to a foreign origin outside the base path',
    handler: (_, res) => sendJson(res, 200, page([REPORT], `${foreign.origin}/steal?next=1`)),
    status: 502,
    issue: 'security',
  },
  {
    name: 'sending next links that form a cycle',
    handler: (request, res) => {
      const next = request.url.includes('_offset=1') ? '/fhir/DiagnosticReport?_offset=2' : '/fhir/DiagnosticReport?_offset=1';
      sendJson(res, 200, page([REPORT], next));
    },
    status: 502,
    issue: 'invalid',
  },
  {
    name: 'paging beyond the page bound',
    handler: (request, res) => {
      const offset = Number(new URL(request.url, 'http://x').searchParams.get('_offset') ?? 0);
      sendJson(res, 200, page([{ ...REPORT, id: `r${offset}` }], `/fhir/DiagnosticReport?_offset=${offset + 1}`));
    },
    status: 502,
    issue: 'too-costly',
  },
];

describe.each(faults)('an upstream $name', (fault) => {
  it(`answers ${fault.status} with an OperationOutcome and keeps serving`, async () => {
    upstream.setHandler(fault.handler);
    upstream.received.length = 0;
    foreign.received.length = 0;
    const response = await service.get('/api/DiagnosticReport?patient=1&access_token=fault-token');
    expect(foreign.received, 'requests sent to the foreign site').toHaveLength(0);
    const body = await expectOutcome(response, fault.status, fault.issue);
    expect(JSON.stringify(body)).not.toContain('fault-token');
    for (const request of upstream.received) expect(request.headers.host).toBe(new URL(upstream.origin).host);

    upstream.setHandler(healthy);
    expect((await service.get('/healthz')).status).toBe(200);
    const after = await service.get('/api/DiagnosticReport?patient=1');
    expect(after.status).toBe(200);
    expect(((await after.json()) as { total: number }).total).toBe(1);
  });
});

describe('an upstream that is down', () => {
  let down: TestService;
  beforeAll(async () => {
    down = await startTestService({ UPSTREAM_URL: `http://127.0.0.1:${await closedPort()}/fhir`, UPSTREAM_TIMEOUT_MS: '2000' });
  });
  afterAll(async () => down?.close());

  it('answers 502 on search and on read, and the service stays up', async () => {
    await expectOutcome(await down.get('/api/DiagnosticReport?patient=1'), 502, 'transient');
    await expectOutcome(await down.get('/api/DiagnosticReport/1?access_token=t'), 502, 'transient');
    expect((await down.get('/healthz')).status).toBe(200);
  });
});

describe('a by-id read answered with another record', () => {
  it('answers 502', async () => {
    upstream.setHandler((_, res) => sendJson(res, 200, { ...REPORT, id: 'someone-else' }));
    await expectOutcome(await service.get('/api/DiagnosticReport/r1?access_token=t'), 502, 'invalid');
    upstream.setHandler(healthy);
  });
});

describe('a token that is not a token', () => {
  it.each(['a%0d%0aX-Injected: 1', 'a%00b', 'two%20words'])('answers 401 for %s and sends nothing upstream', async (token) => {
    upstream.received.length = 0;
    await expectOutcome(await service.get(`/api/DiagnosticReport?patient=1&access_token=${token}`), 401, 'login');
    expect(upstream.received).toHaveLength(0);
  });
});

describe('an upstream that refuses the token', () => {
  it('answers 401 without echoing the token or the upstream body', async () => {
    upstream.setHandler((_, res) => sendJson(res, 401, { resourceType: 'OperationOutcome', issue: [{ diagnostics: 'secret internals' }] }));
    // (A token that does not spell part of the answer's own code, `upstream-refused-token`.)
    const body = await expectOutcome(await service.get('/api/DiagnosticReport?access_token=tok-said-no-4711'), 401, 'login');
    expect(JSON.stringify(body)).not.toMatch(/tok-said-no-4711|secret internals/);
    upstream.setHandler(healthy);
  });
});

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
