/**
 * An upstream failure's log line names its kind — connection refused, reset, DNS, TLS, timeout,
 * HTTP status, not JSON, too large — so an operator can act; never the query, the token or a body.
 * So does a failure of the authorization side in service mode (token endpoint, introspection, JWKS).
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startCannedUpstream, type CannedHandler, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService } from './support/facade.ts';

const TOKEN = 'LogCheckToken0123456789abcdefXYZ';
const QUERY = 'patient=4711&start_date=2021-02-03';
const UPSTREAM_SECRET = 'upstream-body-marker-5d1e';

interface FailureLine {
  message: string;
  code: string;
  cause: string;
}

/** Makes one request through a service on `upstreamUrl` and returns the status and its error log line. */
async function failureOf(
  upstreamUrl: string,
  env: Record<string, string> = {},
  token = TOKEN,
): Promise<{ status: number; code: string | undefined; line: FailureLine; log: string }> {
  const service = await startTestService({ UPSTREAM_URL: upstreamUrl, CACHE_ENABLED: 'false', UPSTREAM_TIMEOUT_MS: '500', ...env });
  try {
    const response = await service.get(`/api/DiagnosticReport?${QUERY}&access_token=${token}`);
    const body = (await response.json()) as { issue?: { details?: { text?: string } }[] };
    const lines = service.logLines.map((text) => JSON.parse(text) as FailureLine);
    const line = lines.find((entry) => entry.message === 'request failed');
    if (line === undefined) throw new Error(`no failure line in ${service.logLines.length} log lines`);
    return { status: response.status, code: body.issue?.[0]?.details?.text, line, log: service.logLines.join('\n') };
  } finally {
    await service.close();
  }
}

function expectNothingSecret(log: string): void {
  for (const secret of [TOKEN, '4711', '2021-02-03', 'access_token', UPSTREAM_SECRET]) expect(log).not.toContain(secret);
}

let upstream: CannedUpstream;
let resetting: Server;
let resetPort: number;

beforeAll(async () => {
  upstream = await startCannedUpstream();
  // A server that accepts the connection and drops it at once.
  resetting = createServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
  resetPort = (resetting.address() as AddressInfo).port;
});
afterAll(async () => {
  await upstream?.close();
  await new Promise((resolve) => resetting?.close(resolve));
});

/** A loopback port nothing listens on: taken, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('the log line of an upstream failure names its kind', () => {
  it('connection refused', async () => {
    const { status, code: answered, line, log } = await failureOf(`http://127.0.0.1:${await closedPort()}/fhir`);
    expect(answered, 'the details code of the answer').toBe('upstream-error');
    expect(status).toBe(502);
    expect(line).toMatchObject({ code: 'upstream-error', cause: 'connection-refused' });
    expectNothingSecret(log);
  });

  it('connection reset', async () => {
    const { line } = await failureOf(`http://127.0.0.1:${resetPort}/fhir`);
    expect(line).toMatchObject({ code: 'upstream-error', cause: 'connection-reset' });
  });

  it('a name that does not resolve', async () => {
    const { status, line } = await failureOf('http://upstream.invalid/fhir');
    expect(status).toBe(502);
    expect(line).toMatchObject({ code: 'upstream-error', cause: 'dns' });
  });

  it('TLS that fails (https to a plain HTTP server)', async () => {
    const { line } = await failureOf(`${upstream.origin.replace('http:', 'https:')}/fhir`);
    expect(line).toMatchObject({ code: 'upstream-error', cause: 'tls' });
  });

  const answers: { name: string; handler: CannedHandler; code: string; cause: string }[] = [
    { name: 'an HTTP status', handler: (_, res) => sendJson(res, 503, { text: UPSTREAM_SECRET }), code: 'upstream-error', cause: 'http-503' },
    {
      name: 'a body that is not JSON',
      handler: (_, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<html>${UPSTREAM_SECRET}</html>`);
      },
      code: 'upstream-bad-body',
      cause: 'not-json',
    },
    {
      name: 'a body that is not FHIR',
      handler: (_, res) => sendJson(res, 200, { resourceType: 'Bundle', entry: { x: UPSTREAM_SECRET } }),
      code: 'upstream-bad-body',
      cause: 'not-fhir',
    },
    {
      name: 'a body too large',
      handler: (_, res) => sendJson(res, 200, { resourceType: 'Bundle', pad: UPSTREAM_SECRET.repeat(200) }),
      code: 'upstream-too-large',
      cause: 'too-large',
    },
    { name: 'no answer in time', handler: () => undefined, code: 'upstream-timeout', cause: 'timeout' },
  ];
  for (const { name, handler, code, cause } of answers) {
    it(name, async () => {
      upstream.setHandler(handler);
      const { code: answered, line, log } = await failureOf(`${upstream.origin}/fhir`, { UPSTREAM_MAX_BODY_BYTES: '2048' });
      expect(line).toMatchObject({ code, cause });
      expect(answered, 'the details code of the answer').toBe(code);
      expectNothingSecret(log);
    });
  }
});

describe('the log line of an authorization-side failure (service mode) names its kind', () => {
  /** Service mode with every authorization URL on `authOrigin`; the caller's token checked as `validation` says. */
  const serviceMode = (authOrigin: string, validation: 'jwt' | 'introspection') => ({
    UPSTREAM_AUTH_MODE: 'service',
    UPSTREAM_TOKEN_URL: `${authOrigin}/token`,
    UPSTREAM_CLIENT_ID: 'facade',
    UPSTREAM_CLIENT_SECRET: 'facade-secret',
    CALLER_TOKEN_VALIDATION: validation,
    ...(validation === 'jwt'
      ? { JWKS_URL: `${authOrigin}/jwks`, TOKEN_ISSUER: authOrigin, TOKEN_AUDIENCE: 'https://facade.test/' }
      : { INTROSPECTION_URL: `${authOrigin}/introspect` }),
  });

  it('an introspection endpoint that refuses connections', async () => {
    const {
      status,
      code: answered,
      line,
      log,
    } = await failureOf(`${upstream.origin}/fhir`, serviceMode(`http://127.0.0.1:${await closedPort()}`, 'introspection'));
    expect({ status, answered }).toEqual({ status: 502, answered: 'auth-server-error' });
    expect(line).toMatchObject({ code: 'auth-server-error', cause: 'connection-refused' });
    expectNothingSecret(log);
  });

  it('a JWKS that refuses connections', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const jwt = await new SignJWT({ patient: '4711' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setSubject('app')
      .setExpirationTime('5m')
      .sign(privateKey);
    const { line } = await failureOf(`${upstream.origin}/fhir`, serviceMode(`http://127.0.0.1:${await closedPort()}`, 'jwt'), jwt);
    expect(line).toMatchObject({ code: 'auth-server-error', cause: 'connection-refused' });
  });

  it('an introspection endpoint answering an HTTP error', async () => {
    upstream.setHandler((_, res) => sendJson(res, 503, {}));
    const { line } = await failureOf(`${upstream.origin}/fhir`, serviceMode(upstream.origin, 'introspection'));
    expect(line).toMatchObject({ code: 'auth-server-error', cause: 'http-503' });
  });
});
