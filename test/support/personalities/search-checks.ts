/**
 * Each non-paging personality, hit directly: includes, unknown parameters, outcome entries,
 * reference forms, gzip and throttling really behave as UPSTREAMS.md documents, and its
 * CapabilityStatement says what it supports.
 */
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import type { CapabilityStatementJson } from './capability-statement.ts';
import { getFhir, matchIds, walk, type CheckContext, type ProxyCheck } from './proxy-checks.ts';
import type { Searchset } from './searchset-rewrite.ts';

const ENCOUNTERS = '/Encounter?patient=Patient/1&_include=Encounter:patient&_revinclude=DocumentReference:encounter';

async function capability(ctx: CheckContext, type: string) {
  const statement = (await getFhir<CapabilityStatementJson>(`${ctx.proxy.baseUrl}/metadata`)).body;
  return statement.rest[0]!.resource.find((resource) => resource.type === type)!;
}

const typesIn = (bundle: Searchset) => [...new Set((bundle.entry ?? []).map((entry) => entry.resource?.resourceType))].sort();

/** The outcome entry of a page, if its first entry is one. */
function outcomeEntry(bundle: Searchset): { issue: { severity: string; code: string; details: { coding?: { code: string }[] } }[] } | undefined {
  const first = bundle.entry?.[0];
  if (first?.search?.mode !== 'outcome') return undefined;
  expect(first.resource?.resourceType).toBe('OperationOutcome');
  return first.resource as never;
}

/** Status and headers of `count` GETs in a row. */
async function statuses(url: string, count: number): Promise<{ status: number; headers: Headers; text: string }[]> {
  const answers = [];
  for (let index = 0; index < count; index++) {
    const response = await fetch(url);
    answers.push({ status: response.status, headers: response.headers, text: await response.text() });
  }
  return answers;
}

/** A GET over node:http, which (unlike fetch) leaves the body as the server encoded it. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

const throttleCheck =
  (every: number, burst: number, expectHeaders: (headers: Headers) => void, body: 'outcome' | 'empty'): ProxyCheck =>
  async ({ proxy }) => {
    const answers = await statuses(`${proxy.baseUrl}/Coverage?patient=Patient/1`, every * 2);
    const refused = answers.flatMap((answer, index) => (answer.status === 429 ? [index] : []));
    const expected = [0, 1].flatMap((round) => Array.from({ length: burst }, (_, index) => round * every + every - burst + index));
    expect(refused).toEqual(expected);
    for (const index of refused) {
      expectHeaders(answers[index]!.headers);
      if (body === 'empty') expect(answers[index]!.text).toBe('');
      else expect(JSON.parse(answers[index]!.text)).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'throttled' }] });
    }
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(2 * (every - burst));
  };

export const SEARCH_CHECKS: Record<string, ProxyCheck> = {
  'cerner-includes-ignored': async (ctx) => {
    const { body } = await getFhir(`${ctx.proxy.baseUrl}${ENCOUNTERS}`);
    expect(typesIn(body)).toEqual(['Encounter']);
    const withProvenance = await getFhir(`${ctx.proxy.baseUrl}/Observation?category=social-history&_revinclude=Provenance:target&_count=1000`);
    expect(typesIn(withProvenance.body)).toEqual(['Observation', 'Provenance']);
    // Silent about includes: the facade has to find out by asking.
    const encounter = await capability(ctx, 'Encounter');
    expect(encounter.searchInclude).toBeUndefined();
    expect(encounter.searchRevInclude).toBeUndefined();
    expect(body.total).toBeUndefined();
  },

  'cerner-includes-declared': async (ctx) => {
    expect((await getFhir(`${ctx.proxy.baseUrl}${ENCOUNTERS}`)).status).toBe(400);
    const encounter = await capability(ctx, 'Encounter');
    expect(encounter.searchInclude).toEqual([]);
    expect(encounter.searchRevInclude).toEqual(['Provenance:target']);
  },

  'cerner-includes-refused': async (ctx) => {
    const refused = await getFhir(`${ctx.proxy.baseUrl}${ENCOUNTERS}`);
    expect(refused.status).toBe(400);
    expect(refused.body.resourceType).toBe('OperationOutcome');
    expect((await getFhir(`${ctx.proxy.baseUrl}/Observation?patient=Patient/1&_revinclude=Provenance:target`)).status).toBe(200);
    expect((await capability(ctx, 'Observation')).searchInclude).toBeUndefined();
  },

  'azure-outcome-first': async ({ proxy }) => {
    const { pages } = await walk(proxy, `${proxy.baseUrl}/Observation?patient=Patient/1&_count=200`);
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) expect(outcomeEntry(page)?.issue.map((issue) => issue.severity)).toEqual(['information']);
  },

  'epic-no-results': async ({ proxy }) => {
    const empty = await getFhir(`${proxy.baseUrl}/Condition?patient=Patient/999999`);
    expect(empty.status).toBe(200);
    expect(empty.body.total).toBe(0);
    expect(empty.body.entry).toHaveLength(1);
    expect(outcomeEntry(empty.body)!.issue).toMatchObject([{ severity: 'warning', details: { coding: [{ code: '4101' }] } }]);
    const found = await getFhir(`${proxy.baseUrl}/Condition?patient=Patient/1`);
    expect(outcomeEntry(found.body)!.issue.map((issue) => issue.severity)).toEqual(['information']);
    expect(matchIds(found.body).length).toBeGreaterThan(0);
  },

  'date-params-missing': async (ctx) => {
    const { baseUrl } = ctx.proxy;
    expect((await getFhir(`${baseUrl}/DiagnosticReport?patient=Patient/1&date=ge2020-01-01`)).status).toBe(400);
    expect((await getFhir(`${baseUrl}/DiagnosticReport?patient=Patient/1`)).status).toBe(200);
    expect((await capability(ctx, 'Condition')).searchParam?.map((param) => param.name)).not.toContain('onset-date');
  },

  'strict-unknown-params': async (ctx) => {
    const { baseUrl } = ctx.proxy;
    for (const [query, prefer] of [
      ['/Goal?patient=Patient/1&category=sdoh', 'handling=strict'],
      ['/Goal?patient=Patient/1&category=sdoh', 'handling=lenient'],
      ['/Observation?patient=Patient/1&no-such-param=x', ''],
    ] as const) {
      const refused = await getFhir<{ issue: { diagnostics: string }[] }>(`${baseUrl}${query}`, { headers: { prefer } });
      expect(refused.status).toBe(400);
      expect(refused.body.issue[0]!.diagnostics).toMatch(/^HAPI-0524: Unknown search parameter/);
    }
    expect((await getFhir(`${baseUrl}/Specimen?patient=Patient/1`)).status).toBe(400);
    expect(matchIds((await getFhir(`${baseUrl}/Specimen?subject=Patient/1`)).body).length).toBeGreaterThan(0);
    expect((await capability(ctx, 'Goal')).searchParam!.map((param) => param.name)).not.toContain('category');
    expect((await capability(ctx, 'Specimen')).searchParam!.map((param) => param.name)).not.toContain('patient');
  },

  'lenient-unknown-params': async (ctx) => {
    const { baseUrl } = ctx.proxy;
    const ignored = await getFhir(`${baseUrl}/Goal?patient=Patient/1&category=no-such-category`);
    expect(ignored.status).toBe(200);
    expect(outcomeEntry(ignored.body)!.issue).toMatchObject([{ severity: 'warning', code: 'not-supported' }]);
    // Dropped, not applied: every Goal of the patient comes back.
    expect(matchIds(ignored.body)).toEqual(matchIds((await getFhir(`${baseUrl}/Goal?patient=Patient/1`)).body));
    expect(matchIds(ignored.body).length).toBeGreaterThan(0);
    expect((await getFhir(`${baseUrl}/Goal?patient=Patient/1&category=sdoh`, { headers: { prefer: 'handling=strict' } })).status).toBe(400);
    expect((await capability(ctx, 'Goal')).searchParam!.map((param) => param.name)).not.toContain('category');
  },

  'medplum-typed-references': async ({ proxy }) => {
    const encounter = (await getFhir(`${proxy.baseUrl}/Encounter?patient=1&_count=1`)).body.entry![0]!.resource as { id: string };
    const typed = await getFhir(`${proxy.baseUrl}/DocumentReference?encounter=Encounter/${encounter.id}`);
    expect(matchIds(typed.body).length).toBeGreaterThan(0);
    expect(matchIds((await getFhir(`${proxy.baseUrl}/DocumentReference?encounter=${encounter.id}`)).body)).toEqual([]);
    for (const param of ['patient', 'subject'])
      expect(matchIds((await getFhir(`${proxy.baseUrl}/DocumentReference?${param}=1`)).body).length).toBeGreaterThan(0);
    expect(proxy.stats.bareReferencesUnmatched).toBe(1);
  },

  'typed-references-without-includes': async ({ proxy }) => {
    const { body } = await getFhir(`${proxy.baseUrl}${ENCOUNTERS}`);
    expect(typesIn(body)).toEqual(['Encounter']);
    const id = (body.entry![0]!.resource as { id: string }).id;
    expect(matchIds((await getFhir(`${proxy.baseUrl}/DocumentReference?encounter=${id}`)).body)).toEqual([]);
    expect(matchIds((await getFhir(`${proxy.baseUrl}/DocumentReference?encounter=Encounter/${id}`)).body).length).toBeGreaterThan(0);
  },

  'gzip-when-asked': async ({ proxy }) => {
    const url = `${proxy.baseUrl}/Condition?patient=Patient/1`;
    const zipped = await rawGet(url, { 'accept-encoding': 'gzip, deflate' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect([...zipped.body.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    const plain = await rawGet(url, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(gunzipSync(zipped.body).toString('utf8'))).toMatchObject({
      resourceType: 'Bundle',
      entry: JSON.parse(plain.body.toString('utf8')).entry,
    });
  },

  'throttle-retry-after': throttleCheck(100, 2, (headers) => expect(headers.get('retry-after')).toBe('1'), 'outcome'),
  'throttle-ms-header': throttleCheck(
    20,
    3,
    (headers) => {
      expect(headers.get('x-ms-retry-after-ms')).toBe('50');
      expect(headers.get('retry-after')).toBeNull();
    },
    'outcome',
  ),
  'throttle-no-header': throttleCheck(20, 2, (headers) => expect([...headers.keys()].filter((name) => name.includes('retry'))).toEqual([]), 'empty'),
};
