/**
 * The shared tier on a real Redis server (Debian's redis-server, started on a free loopback port):
 * a second service answers from it without calling the upstream; two tokens never share an entry,
 * and an entry planted under another caller's name fails to decrypt and is a miss; a dump shows no
 * token, patient id, name or record id; only 2xx answers are stored. Outages and TTLs:
 * test/redis-tier-outage.test.ts.
 */
import { expect, it } from 'vitest';
import { sendJson } from './support/canned-upstream.ts';
import { describeUnless } from './support/describe-unless.ts';
import { redisMissing } from './support/redis-server.ts';
import {
  PATH,
  PATIENT,
  PERFORMER_NAME,
  REPORT_ID,
  STATUS_OF,
  TOKEN_A,
  TOKEN_B,
  ask,
  cacheOutcomes,
  redisPerTest,
  tierEvents,
  upstreamCalls,
} from './support/shared-tier-fixture.ts';

/** A Redis server and a service fixture on it, per test, stopped after each (support/shared-tier-fixture.ts). */
const setUp = redisPerTest();

describeUnless(redisMissing)('the Redis tier', () => {
  it('lets a second service (another process or instance, the same CACHE_SECRET) answer from Redis without calling the upstream', async () => {
    const { fixture } = await setUp();
    const first = await fixture.service();
    expect(await ask(first, TOKEN_A)).toMatchObject({ status: 200, reportStatus: 'final' });
    await first.cache!.settle(); // the write to Redis runs after the answer
    expect(upstreamCalls(fixture)).toBe(1);
    const second = await fixture.service();
    const answer = await ask(second, TOKEN_A);
    expect(answer).toMatchObject({ status: 200, reportStatus: 'final' });
    expect(upstreamCalls(fixture)).toBe(1);
    expect(cacheOutcomes(second)).toEqual(['hit']);
    expect(await tierEvents(second)).toMatchObject({ hit: 1 });
    expect(await tierEvents(first)).toMatchObject({ miss: 1, store: 1 });
    // Then it is in the second service's own memory: no second Redis read.
    await ask(second, TOKEN_A);
    expect(await tierEvents(second)).toMatchObject({ hit: 1 });
  });

  it('never lets two tokens share an entry', async () => {
    const { redis, fixture } = await setUp();
    const first = await fixture.service();
    for (const token of [TOKEN_A, TOKEN_B]) expect((await ask(first, token)).reportStatus).toBe(STATUS_OF[token]);
    await first.cache!.settle();
    const entries = await redis.dump();
    expect(entries).toHaveLength(2);
    expect(entries[0]!.key).not.toBe(entries[1]!.key);
    const second = await fixture.service();
    for (const token of [TOKEN_B, TOKEN_A]) expect((await ask(second, token)).reportStatus).toBe(STATUS_OF[token]);
    expect(upstreamCalls(fixture)).toBe(2);
    expect(await tierEvents(second)).toMatchObject({ hit: 2 });
  });

  it('takes an entry planted under another caller’s name as a miss: it does not decrypt with that caller’s token', async () => {
    const { redis, fixture } = await setUp();
    const first = await fixture.service();
    await ask(first, TOKEN_A);
    await first.cache!.settle();
    const [entryOfA] = await redis.dump();
    await ask(first, TOKEN_B);
    await first.cache!.settle();
    const entryOfB = (await redis.dump()).find((entry) => entry.key !== entryOfA!.key)!;
    // The collision: B's name now holds A's entry.
    await redis.plant(entryOfB.key, entryOfA!.value);
    const second = await fixture.service();
    expect(await ask(second, TOKEN_B)).toMatchObject({ status: 200, reportStatus: STATUS_OF[TOKEN_B] });
    expect(upstreamCalls(fixture)).toBe(3);
    expect(cacheOutcomes(second)).toEqual(['miss']);
    expect(await tierEvents(second)).toMatchObject({ miss: 1 });
    expect((await tierEvents(second)).hit).toBeUndefined();
    expect(second.logLines.filter((line) => line.includes('"level":"error"'))).toEqual([]);
  });

  it('keeps neither a token nor a patient id, name or record id in a dump of Redis', async () => {
    const { redis, fixture } = await setUp();
    const service = await fixture.service();
    const answers = [await ask(service, TOKEN_A), await ask(service, TOKEN_B), await ask(service, undefined)];
    expect((await ask(service, TOKEN_A, `/api/DiagnosticReport/${REPORT_ID}`)).status).toBe(200);
    await service.cache!.settle();
    // The answers do hold them: the dump is where they must not be.
    for (const secretish of [PATIENT, PERFORMER_NAME, REPORT_ID]) expect(answers[0]!.text).toContain(secretish);
    const entries = await redis.dump();
    expect(entries).toHaveLength(4);
    const dump = entries.map((entry) => `${entry.key}\n${entry.value.toString('latin1')}\n${entry.value.toString('utf8')}`).join('\n');
    for (const secretish of [
      TOKEN_A,
      TOKEN_B,
      'token-of-caller',
      PATIENT,
      PERFORMER_NAME,
      'Zebulon',
      REPORT_ID,
      'DiagnosticReport',
      'Patient/',
      'resourceType',
    ]) {
      expect(dump).not.toContain(secretish);
    }
    for (const entry of entries) expect(entry.key).toMatch(/^crrs-facade:v2:[A-Za-z0-9_-]{43}$/);
  });

  it('stores only successful answers', async () => {
    const { redis, fixture } = await setUp();
    const service = await fixture.service();
    for (const status of [500, 404, 401]) {
      fixture.upstream.setHandler((_, res) => sendJson(res, status, { resourceType: 'OperationOutcome', issue: [] }));
      expect((await ask(service, TOKEN_A, `/api/DiagnosticReport?patient=p-${status}`)).status).not.toBe(200);
    }
    await service.cache!.settle();
    expect(await redis.dump()).toEqual([]);
    expect((await tierEvents(service)).store).toBeUndefined();
  });

  it('is asked only after the caller is admitted: a refused request reads nothing from Redis', async () => {
    const { fixture } = await setUp();
    const service = await fixture.service();
    expect((await service.get('/Orders?patient=1')).status).toBe(403); // Orders needs a token
    expect((await service.get(`${PATH}&start_date=2021-02-30`, { headers: { authorization: `Bearer ${TOKEN_A}` } })).status).toBe(400);
    expect(await tierEvents(service)).toEqual({});
  });
});
