/**
 * Upstream bodies that are JSON but not what FHIR promises: a Bundle of the wrong shape, an entry
 * of another type marked as a match, values nested past any stack, numbers beyond a double. Each is
 * refused (502) or read by its resource type; none becomes a shortened 200 or a 500.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { page, sendJson, startCannedUpstream, type CannedUpstream } from './support/canned-upstream.ts';
import { startTestService, type TestService } from './support/facade.ts';

const PATIENT = { resourceType: 'Patient', id: 'p1', name: [{ given: ['Ann'], family: 'Lee' }] };
const report = (id: string) => ({ resourceType: 'DiagnosticReport', id, status: 'final', subject: { reference: 'Patient/p1' } });
const observation = (id: string, value: string) => `{"resourceType":"Observation","id":"${id}","status":"final","subject":{"reference":"Patient/p1"},${value}}`;

let upstream: CannedUpstream;
let service: TestService;

beforeAll(async () => {
  upstream = await startCannedUpstream();
  service = await startTestService({ UPSTREAM_URL: `${upstream.origin}/fhir`, CACHE_ENABLED: 'false' });
});
afterAll(async () => {
  await service?.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.received.length = 0;
});

/** Answers every upstream request with the given JSON text as it is (the test builds bodies JSON.stringify cannot). */
function answerRaw(text: string): void {
  upstream.setHandler((_, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/fhir+json' });
    res.end(text);
  });
}

async function expectBadBody(path: string): Promise<string> {
  const response = await service.get(path);
  const body = (await response.json()) as { resourceType: string; issue: { code: string; details: { text: string } }[] };
  expect(response.status).toBe(502);
  expect(body.resourceType).toBe('OperationOutcome');
  expect(body.issue[0]?.details.text).toBe('upstream-bad-body');
  return JSON.stringify(body);
}

const REPORTS = '/api/DiagnosticReport?patient=p1';

describe('a Bundle that breaks FHIR JSON shape is a 502, never "nothing there"', () => {
  const second = `${'/fhir/DiagnosticReport?page=2'}`;
  const broken: { name: string; bundle: object }[] = [
    {
      name: 'link as an object',
      bundle: { resourceType: 'Bundle', type: 'searchset', entry: [{ resource: report('r1') }], link: { relation: 'next', url: second } },
    },
    { name: 'entry as an object', bundle: { resourceType: 'Bundle', type: 'searchset', entry: { resource: report('r1'), search: { mode: 'match' } } } },
    { name: 'entry as a string', bundle: { resourceType: 'Bundle', type: 'searchset', entry: 'none' } },
    { name: 'an entry resource as a string', bundle: { resourceType: 'Bundle', type: 'searchset', entry: [{ resource: 'DiagnosticReport/r1' }] } },
    { name: 'an entry resource as an array', bundle: { resourceType: 'Bundle', type: 'searchset', entry: [{ resource: [report('r1')] }] } },
    { name: 'an entry that is null', bundle: { resourceType: 'Bundle', type: 'searchset', entry: [null] } },
    { name: 'search as a string', bundle: { resourceType: 'Bundle', type: 'searchset', entry: [{ resource: report('r1'), search: 'match' }] } },
    { name: 'an unknown search mode', bundle: { resourceType: 'Bundle', type: 'searchset', entry: [{ resource: report('r1'), search: { mode: 'matched' } }] } },
    { name: 'a link without a url', bundle: { resourceType: 'Bundle', type: 'searchset', entry: [{ resource: report('r1') }], link: [{ relation: 'next' }] } },
    {
      name: 'two next links',
      bundle: {
        resourceType: 'Bundle',
        type: 'searchset',
        entry: [],
        link: [
          { relation: 'next', url: second },
          { relation: 'next', url: `${second}0` },
        ],
      },
    },
    ...['constructor', '__proto__', 'toString', 'observation', ''].map((resourceType) => ({
      name: `a resourceType ${JSON.stringify(resourceType)}`,
      bundle: {
        resourceType: 'Bundle',
        type: 'searchset',
        entry: [{ resource: report('r1') }, { resource: { resourceType, id: 'x' }, search: { mode: 'include' } }],
      },
    })),
    { name: 'a history Bundle answering a search', bundle: { resourceType: 'Bundle', type: 'history', entry: [{ resource: report('r1') }] } },
    { name: 'a Bundle without a type', bundle: { resourceType: 'Bundle', entry: [{ resource: report('r1') }] } },
    { name: 'a record id that is a number', bundle: { resourceType: 'Bundle', type: 'searchset', entry: [{ resource: { ...report('r1'), id: 1 } }] } },
  ];
  for (const { name, bundle } of broken) {
    it(`refuses ${name}`, async () => {
      upstream.setHandler((_, res) => sendJson(res, 200, bundle));
      await expectBadBody(REPORTS);
    });
  }

  it('still reads a page without entry or link (an empty search)', async () => {
    upstream.setHandler((_, res) => sendJson(res, 200, { resourceType: 'Bundle', type: 'searchset', total: 0 }));
    const response = await service.get(REPORTS);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { total: number }).total).toBe(0);
  });
});

describe('the resource type decides what an entry is', () => {
  it('never shows a Patient marked as a match as a DiagnosticReport; it still names the subject', async () => {
    upstream.setHandler((_, res) =>
      sendJson(res, 200, {
        resourceType: 'Bundle',
        type: 'searchset',
        entry: [
          { resource: report('r1'), search: { mode: 'match' } },
          { resource: PATIENT, search: { mode: 'match' } },
          { resource: report('r2'), search: { mode: 'match' } },
        ],
      }),
    );
    const response = await service.get(REPORTS);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { entry: { full_url: string; resource: { resourceType: string } }[]; total: number };
    expect(body.entry.map((entry) => entry.full_url)).toEqual(['/DiagnosticReport/r1', '/DiagnosticReport/r2']);
    expect(body.total).toBe(2);
  });

  it('keeps a record of the searched type that the server marks as included out of the matches', async () => {
    upstream.setHandler((_, res) =>
      sendJson(res, 200, {
        resourceType: 'Bundle',
        type: 'searchset',
        entry: [
          { resource: report('r1'), search: { mode: 'match' } },
          { resource: report('r9'), search: { mode: 'include' } },
        ],
      }),
    );
    const body = (await (await service.get(REPORTS)).json()) as { entry: { full_url: string }[] };
    expect(body.entry.map((entry) => entry.full_url)).toEqual(['/DiagnosticReport/r1']);
  });
});

describe('values no legacy payload can carry are refused, never a 500', () => {
  const OBSERVATIONS = '/Observation?patient=p1&access_token=abcdefgh12345678';
  const nested = (levels: number) => `${'{"value":'.repeat(levels)}1${'}'.repeat(levels)}`;
  const searchset = (...resources: string[]) =>
    `{"resourceType":"Bundle","type":"searchset","entry":[${resources.map((r) => `{"resource":${r},"search":{"mode":"match"}}`).join(',')}]}`;

  it('refuses a valueQuantity nested 100,000 levels deep', async () => {
    answerRaw(searchset(observation('o1', '"valueQuantity":{"value":1}'), observation('o2', `"valueQuantity":${nested(100_000)}`)));
    await expectBadBody(OBSERVATIONS);
  });

  it("refuses a component's value nested 100,000 levels deep", async () => {
    answerRaw(searchset(observation('o1', `"component":[{"code":{"text":"x"},"valueQuantity":${nested(100_000)}}]`)));
    await expectBadBody(OBSERVATIONS);
  });

  it('refuses a deep value on a by-id read too', async () => {
    answerRaw(`{"resourceType":"DiagnosticReport","id":"r1","status":"final","code":${nested(50_000)}}`);
    await expectBadBody('/api/DiagnosticReport/r1?access_token=abcdefgh12345678');
  });

  it('passes a value nested as deep as FHIR data goes', async () => {
    answerRaw(searchset(observation('o1', `"valueQuantity":{"value":5,"extension":[${nested(40)}]}`)));
    const response = await service.get(OBSERVATIONS);
    expect(response.status).toBe(200);
    expect(JSON.stringify(await response.json())).toContain(nested(40));
  });

  it('counts no bracket inside a string, escaped quotes included, toward the depth', async () => {
    const noisy = JSON.stringify(`\\"${'{['.repeat(300)}\\`);
    answerRaw(searchset(observation('o1', `"valueString":${noisy}`)));
    const response = await service.get(OBSERVATIONS);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(`"valueString":${noisy}`);
  });

  for (const written of ['1e400', '-1e400', '1E+400', `1${'0'.repeat(400)}`, '1e-400', `0.${'0'.repeat(400)}1`]) {
    it(`refuses a lab value of ${written.slice(0, 12)} (beyond a double), never writing it as null or 0`, async () => {
      answerRaw(searchset(observation('o1', `"valueQuantity":{"value":${written},"unit":"mg"}`)));
      await expectBadBody(OBSERVATIONS);
    });
  }

  it('keeps numbers a double holds, and text that only looks like a huge number', async () => {
    answerRaw(searchset(observation('o1', '"valueQuantity":{"value":1.5e2,"unit":"1e-400 mg"},"note":[{"text":"1e400"}]')));
    const response = await service.get(OBSERVATIONS);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"valueQuantity":{"value":150,"unit":"1e-400 mg"}');
  });
});

describe('a page whose entries all pass', () => {
  it('is answered whole across pages', async () => {
    upstream.setHandler((request, res) =>
      sendJson(res, 200, request.url.includes('page=2') ? page([report('r2')]) : page([report('r1')], `${upstream.origin}/fhir/DiagnosticReport?page=2`)),
    );
    const body = (await (await service.get(REPORTS)).json()) as { total: number };
    expect(body.total).toBe(2);
    expect(upstream.received).toHaveLength(2);
  });
});
