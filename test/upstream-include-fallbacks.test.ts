/**
 * Upstreams that do not carry out `_include` / `_revinclude` (Oracle Health allows only
 * `Provenance:target`; a lenient server ignores what it does not know; a strict one answers 400):
 * the legacy answers stay byte-identical to those over a server that does, and the upstream round
 * trips stay bounded by types and pages, never by records (docs/decisions.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDS_PER_SEARCH } from '../src/pipeline/plans/include-fallbacks.ts';
import { startEmbeddedTestService, type EmbeddedTestService } from './support/embedded-service.ts';
import { startTestService, type TestService } from './support/facade.ts';
import { startRecordingProxy, type Interception, type RecordingProxy } from './support/recording-proxy.ts';

/** What the server behind the proxy does with an include it is asked for; `ignore-no-or` also reads `a,b` as one value (no OR lists). */
type IncludeHandling = 'ignore' | 'refuse' | 'ignore-no-or';

/** Only `_revinclude=Provenance:target` survives; any other include is dropped or refused with 400. */
function limitingIncludes(handling: IncludeHandling, declares: boolean): (url: URL) => Interception {
  return (url) => {
    if (url.pathname.endsWith('/metadata')) {
      // Declared as Oracle Health documents it: no _include anywhere, _revinclude Provenance:target only.
      const resource = ['Encounter', 'CareTeam', 'Observation', 'ServiceRequest', 'CarePlan', 'Condition'].map((type) => ({
        type,
        searchInclude: [],
        searchRevInclude: type === 'Observation' ? ['Provenance:target'] : [],
      }));
      return {
        answer: {
          status: 200,
          body: {
            resourceType: 'CapabilityStatement',
            status: 'active',
            kind: 'instance',
            fhirVersion: '4.0.1',
            format: ['json'],
            rest: [{ mode: 'server', ...(declares ? { resource } : {}) }],
          },
        },
      };
    }
    const unsupported = [...url.searchParams].filter(([name, value]) => (name === '_include' || name === '_revinclude') && value !== 'Provenance:target');
    if (unsupported.length > 0 && handling === 'refuse') {
      return {
        answer: {
          status: 400,
          body: { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-supported', diagnostics: 'Unsupported include' }] },
        },
      };
    }
    for (const [name, value] of unsupported) url.searchParams.delete(name, value);
    if (handling === 'ignore-no-or' && [...url.searchParams].some(([name, value]) => name !== '_include' && name !== '_revinclude' && value.includes(','))) {
      return { answer: { status: 200, body: { resourceType: 'Bundle', type: 'searchset', entry: [] } } }; // "a,b" matched as one literal value: nothing
    }
    return { forward: url };
  };
}

/** A proxy in front of the embedded upstream that carries out includes as `handling` says. */
function startIncludeLimitingProxy(handling: IncludeHandling, declares: boolean): Promise<RecordingProxy> {
  return startRecordingProxy(new URL(plain.upstreamUrl).origin, limitingIncludes(handling, declares));
}

/** The URLs of the searches a proxy received (its CapabilityStatement's apart). */
function searchesAt(proxy: RecordingProxy): string[] {
  return proxy.received.map((request) => request.url).filter((url) => !new URL(url, proxy.origin).pathname.endsWith('/metadata'));
}

let plain: EmbeddedTestService;
let patients: string[];

beforeAll(async () => {
  plain = await startEmbeddedTestService();
  patients = (await plain.fhirSearch('Patient')).slice(0, 3).map((patient) => patient.id!);
});
afterAll(async () => plain?.close());

/** Requests whose answers depend on includes: the Encounter record, names, care teams, practitioners, provenance, orders. */
const paths = (patient: string) => [
  `/Encounter?patient=${patient}`,
  `/api/CareTeam?patient=${patient}`,
  `/api/CarePlan?patient=${patient}`,
  `/Practitioner?patient=${patient}`,
  `/Observation?patient=${patient}&_revinclude=Provenance:target&access_token=fallback-token`,
  `/Orders?patient=${patient}&access_token=fallback-token`,
  `/Condition?patient=${patient}`,
];

/** The records of a legacy answer: Bundle entries, or array items. */
function recordsIn(answer: string): number {
  const body = JSON.parse(answer) as { entry?: unknown[] } | unknown[];
  return Array.isArray(body) ? body.length : (body.entry?.length ?? 0);
}

/** The answer with its generated Bundle id blanked: the one part allowed to differ. */
async function answerOf(service: TestService, path: string): Promise<string> {
  const response = await service.get(path);
  const text = await response.text();
  expect(response.status, `${path}: ${text.slice(0, 200)}`).toBe(200);
  return text.replace(/^\{"resourceType":"Bundle","id":"[^"]+"/, '{"resourceType":"Bundle","id":""');
}

describe.each([
  ['ignores unsupported includes and declares nothing', 'ignore', false],
  ['ignores them and declares what it supports', 'ignore', true],
  ['answers 400 to them and declares nothing', 'refuse', false],
] as const)('an upstream that %s', (_, handling, declares) => {
  let proxy: RecordingProxy;
  let service: TestService;

  beforeAll(async () => {
    proxy = await startIncludeLimitingProxy(handling, declares);
    service = await startTestService({ UPSTREAM_URL: `${proxy.origin}/fhir`, CACHE_ENABLED: 'false' });
  });
  afterAll(async () => {
    await service?.close();
    await proxy?.close();
  });

  it('gives byte-identical legacy answers, in round trips bounded by types and pages', async () => {
    for (const patient of patients) {
      for (const path of paths(patient)) {
        const before = searchesAt(proxy).length;
        const expected = await answerOf(plain, path);
        expect(await answerOf(service, path), path).toBe(expected);
        // One search (and its retry without includes), then per included type and per revinclude at
        // most two searches (the batch, and a check of an empty one) for each batch of IDS_PER_SEARCH
        // records: a count of batches, never of records.
        const batches = Math.max(1, Math.ceil(recordsIn(expected) / IDS_PER_SEARCH));
        expect(searchesAt(proxy).length - before, path).toBeLessThanOrEqual(2 + (4 + 3) * 2 * batches);
      }
    }
  });

  it('stops sending what the server does not carry out', async () => {
    proxy.received.length = 0;
    await answerOf(service, `/Encounter?patient=${patients[0]}`);
    expect(searchesAt(proxy).filter((url) => /_include=|_revinclude=(?!Provenance)/.test(decodeURIComponent(url)))).toEqual([]);
  });
});

describe('an upstream that ignores includes and reads a comma-separated list as one value', () => {
  it('is refused (502) rather than shortened: a batched search answered empty is checked with one value alone', async () => {
    const strict = await startIncludeLimitingProxy('ignore-no-or', false);
    const facade = await startTestService({ UPSTREAM_URL: `${strict.origin}/fhir`, CACHE_ENABLED: 'false' });
    try {
      const response = await facade.get(`/Encounter?patient=${patients[0]}`);
      expect(response.status).toBe(502);
      expect(((await response.json()) as { issue: { details: { text: string } }[] }).issue[0]?.details.text).toBe('upstream-search-problem');
    } finally {
      await facade.close();
      await strict.close();
    }
  });
});
