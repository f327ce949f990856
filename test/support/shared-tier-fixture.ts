/**
 * What the shared-tier tests share: a canned upstream whose answer tells whose token asked (and
 * carries a patient id and a name a dump must not show), Node services on one Redis with one
 * CACHE_SECRET, and readers of their metrics and logs.
 */
import { afterEach } from 'vitest';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './canned-upstream.ts';
import { startTestService, type TestService } from './facade.ts';
import { startRedisServer, type RedisServer } from './redis-server.ts';

export const CACHE_SECRET = 'test-cache-secret-3f9a1c0e5b7d2468ace0-2f4b';
export const TOKEN_A = 'token-of-caller-a-81c4e2';
export const TOKEN_B = 'token-of-caller-b-5d93f7';
/** A patient id, a record id and a name that the answers show and a dump of the tier must not. */
export const PATIENT = 'pq-4711';
export const REPORT_ID = 'r-lipids-9d2e';
export const PERFORMER_NAME = 'Zebulon Quixote';
export const PATH = `/api/DiagnosticReport?patient=${PATIENT}`;

/** The status each token's answer carries, so a test sees whose answer a caller got. */
export const STATUS_OF: Record<string, string> = { [TOKEN_A]: 'final', [TOKEN_B]: 'amended' };

export interface Fixture {
  upstream: CannedUpstream;
  /** Every service started, closed by close(). */
  services: TestService[];
  /** A Node service (its own process state: an empty in-process cache) on the fixture's upstream and Redis. */
  service(env?: Record<string, string>): Promise<TestService>;
  close(): Promise<void>;
}

/** The upstream answers one DiagnosticReport of PATIENT, its status telling whose token asked (setHandler changes that). */
export async function startFixture(redis: RedisServer | undefined, baseEnv: Record<string, string> = {}): Promise<Fixture> {
  const upstream = await startCannedUpstream((request, res) => {
    const token = request.headers.authorization?.replace('Bearer ', '') ?? 'none';
    const found = report(STATUS_OF[token] ?? 'preliminary');
    // A search gets a page, a read by id the record itself.
    sendJson(res, 200, request.url.includes('?') ? page([found]) : found);
  });
  const services: TestService[] = [];
  return {
    upstream,
    services,
    async service(env = {}) {
      const redisEnv: Record<string, string> = redis === undefined ? {} : { CACHE_REDIS_URL: redis.url, CACHE_SECRET };
      const started = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, ...redisEnv, ...baseEnv, ...env });
      services.push(started);
      return started;
    },
    async close() {
      for (const service of services) await service.close();
      await upstream.close();
    },
  };
}

export function report(status: string): object {
  return {
    resourceType: 'DiagnosticReport',
    id: REPORT_ID,
    status,
    subject: { reference: `Patient/${PATIENT}` },
    performer: [{ reference: 'Practitioner/p-1', display: PERFORMER_NAME }],
  };
}

/** GET `path` with `token` as a Bearer header (undefined: none), and the answer's status field. */
export async function ask(
  service: TestService,
  token: string | undefined,
  path = PATH,
): Promise<{ status: number; reportStatus: string | undefined; text: string }> {
  const response = await service.get(path, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  const reportStatus = response.status === 200 ? (JSON.parse(text) as { entry?: { resource: { status: string } }[] }).entry?.[0]?.resource.status : undefined;
  return { status: response.status, reportStatus, text };
}

/** The shared tier's counters of a service, by event (`facade_cache_tier_events_total{tier="redis",…}`). */
export async function tierEvents(service: TestService, tier = 'redis'): Promise<Record<string, number>> {
  const text = await (await service.get('/metrics')).text();
  const events: Record<string, number> = {};
  for (const match of text.matchAll(/^facade_cache_tier_events_total\{tier="([^"]+)",event="([^"]+)"\} (\d+)$/gm)) {
    if (match[1] === tier) events[match[2]!] = Number(match[3]);
  }
  return events;
}

/** The cache outcome of each request the service logged, in order. */
export function cacheOutcomes(service: TestService): (string | undefined)[] {
  return logLines(service)
    .filter((line) => line.message === 'request' && line.route !== 'metrics')
    .map((line) => line.cache as string | undefined);
}

export function logLines(service: TestService): Record<string, unknown>[] {
  return service.logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Upstream requests for records (the CapabilityStatement is counted apart by the canned upstream). */
export function upstreamCalls(fixture: Fixture): number {
  return fixture.upstream.received.length;
}

/**
 * Per test: a real Redis server and a fixture on it, both stopped after the test. Call at the top
 * of a test file; the function it returns starts them (`env`: the services' extra settings).
 */
export function redisPerTest(): (env?: Record<string, string>) => Promise<{ redis: RedisServer; fixture: Fixture }> {
  let redis: RedisServer | undefined;
  let fixture: Fixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    await redis?.stop();
    fixture = undefined;
    redis = undefined;
  });
  return async (env = {}) => {
    redis = await startRedisServer();
    fixture = await startFixture(redis, env);
    return { redis, fixture };
  };
}
