/**
 * Grouping differences into patterns (diff-patterns.ts): path generalization, the kinds (format-only
 * instants and numbers included), counts and capped examples, accept rules, noise, verdicts, and the
 * JSON report's fields. The differences come from the real comparison (compareExchanges) of bodies.
 */
import { describe, expect, it } from 'vitest';
import { groupReport, MAX_EXAMPLES, patternPath } from '../../kit/diff-patterns.ts';
import { DEFAULT_RULES, rulesFrom, RulesError, type DiffRules } from '../../kit/diff-rules.ts';
import { endpointOf } from '../../kit/endpoints.ts';
import { keySegment, labelSegment, parsePathRule, patternOf, ruleMatches } from '../../kit/json-path.ts';
import { exitCodeOf, jsonReport } from '../../kit/json-report.ts';
import { changeKind, patternKind } from '../../kit/pattern-kinds.ts';
import { compareExchanges, type DiffReport, type RequestComparison } from '../../kit/replay-diff.ts';

const json = (status: number, body: unknown) => ({ status, headers: { 'content-type': 'application/json' }, bodyText: JSON.stringify(body) });

/** One request's comparison, its differences found by the real comparison of the two bodies. */
function compared(
  method: 'GET' | 'POST',
  target: string,
  left: unknown,
  right: unknown,
  rules: DiffRules = DEFAULT_RULES,
  statuses: [number, number] = [200, 200],
): RequestComparison {
  const path = target.split('?')[0]!;
  return {
    request: `${method} ${target}`,
    endpoint: endpointOf({ method, path }),
    leftStatus: statuses[0],
    rightStatus: statuses[1],
    differences: compareExchanges(
      typeof left === 'string' ? { ...json(statuses[0], null), bodyText: left } : json(statuses[0], left),
      typeof right === 'string' ? { ...json(statuses[1], null), bodyText: right } : json(statuses[1], right),
      rules,
    ),
  };
}

const observations = (id: string, issued: string[], value = 1) => ({
  resourceType: 'Bundle',
  id,
  type: 'searchset',
  entry: issued.map((at, index) => ({
    full_url: `/Observation/${index + 1}`,
    resource: { resourceType: 'Observation', id: String(index + 1), issued: at, valueQuantity: { value } },
  })),
});
const report = (comparisons: RequestComparison[], noise?: RequestComparison[]): DiffReport => ({
  left: 'recordings',
  right: 'http://target',
  comparisons,
  ...(noise ? { noise: { dir: 'noise', comparisons: noise, unmatched: comparisons.length - noise.length } } : {}),
});

describe('patterns: paths', () => {
  it('generalize every index and entry label to [*], in the rule syntax, and match what they came from', () => {
    const concrete = [
      keySegment('entry'),
      labelSegment('full_url=/Observation/5'),
      keySegment('resource'),
      keySegment('code'),
      keySegment('coding'),
      labelSegment(0),
      keySegment('code'),
    ];
    expect(patternOf(concrete)).toBe('$.entry[*].resource.code.coding[*].code');
    for (const segments of [concrete, [keySegment('a b'), labelSegment(3)], [keySegment("it's]\\odd"), keySegment('x')], []]) {
      expect(ruleMatches(parsePathRule(patternOf(segments)), segments), patternOf(segments)).toBe(true);
    }
    expect(patternOf([keySegment("it's]\\odd")])).toBe("$['it\\'s]\\\\odd']");
  });

  it('keep status and headers as they are', () => {
    const comparison = compared('GET', '/Orders?patient=1', [1], [1], { ...DEFAULT_RULES, headers: ['content-type'] }, [200, 500]);
    expect(comparison.differences.map(patternPath)).toEqual(['status']);
  });
});

describe('patterns: kinds', () => {
  it.each([
    ['"2019-03-02T09:30:00-05:00"', '"2019-03-02T14:30:00.000+00:00"', 'format'],
    ['"2019-03-02T09:30:00-05:00"', '"2019-03-02T14:30:00Z"', 'format'],
    ['"2019-03-02T09:30:00-05:00"', '"2019-03-02T09:30:00+00:00"', 'value'],
    ['"2019-03-02T09:30:00.5Z"', '"2019-03-02T09:30:00.500Z"', 'format'],
    ['"2019-03-02T09:30:00.0005Z"', '"2019-03-02T09:30:00.000Z"', 'value'],
    ['"20200113"', '"2020-01-13"', 'format'],
    ['"2020-01-13"', '"2020-01-13T00:00:00Z"', 'value'],
    ['"2019-03-02T09:30:00"', '"2019-03-02T09:30:00Z"', 'value'],
    ['"final"', '"Final"', 'value'],
    ['1.0', '1', 'format'],
    ['174.20', '174.2', 'format'],
    ['1e2', '100', 'format'],
    ['-0', '0.0', 'format'],
    ['0.1', '0.10000000000000001', 'value'],
    ['1', '2', 'value'],
    ['"1"', '1', 'type'],
    ['{"a":1}', '[1]', 'type'],
    ['null', '"x"', 'type'],
  ])('%s → %s: %s', (left, right, kind) => {
    expect(changeKind(left, right)).toBe(kind);
    // The same through the comparison of two bodies.
    const [difference] = compared('GET', '/x', `{"v":${left}}`, `{"v":${right}}`).differences;
    expect(patternKind(difference!)).toBe(kind);
  });

  it('keep missing, extra and key order', () => {
    const { differences } = compared('GET', '/x', '{"a":1,"b":2,"c":3}', '{"b":2,"a":1,"d":4}', { ...DEFAULT_RULES, keyOrder: true });
    expect(differences.map((difference) => [patternPath(difference), patternKind(difference)])).toEqual([
      ['$', 'key-order'],
      ['$.c', 'missing'],
      ['$.d', 'extra'],
    ]);
  });
});

describe('grouping', () => {
  const instants = (count: number, zone: 'offset' | 'utc') =>
    Array.from({ length: count }, (_, i) => (zone === 'offset' ? `2020-01-1${i}T09:30:00-05:00` : `2020-01-1${i}T14:30:00.000+00:00`));
  const site = () => [
    ...[1, 2, 3, 4, 5].map((patient) =>
      compared('GET', `/Observation?patient=${patient}`, observations('a', instants(patient, 'offset')), observations('b', instants(patient, 'utc'))),
    ),
    compared('GET', '/api/DiagnosticReport/7', observations('a', instants(2, 'offset')), observations('b', instants(2, 'utc'))),
    compared('GET', '/Observation?patient=6', observations('a', []), observations('b', [])),
    compared('GET', '/Orders?patient=1', [{ code: 'x', value: 1.0 }], [{ code: 'x', value: 2 }]),
  ];

  it('counts requests and differences per pattern, lists the endpoints, takes a few examples from different requests', () => {
    const grouped = groupReport(report(site()));
    expect(grouped.patterns.map(({ path, kind, requests, differences, endpoints }) => ({ path, kind, requests, differences, endpoints }))).toEqual([
      {
        path: '$.entry[*].resource.issued',
        kind: 'format',
        requests: 6,
        differences: 1 + 2 + 3 + 4 + 5 + 2,
        endpoints: ['GET /Observation', 'GET /api/DiagnosticReport/:id'],
      },
      { path: '$[*].value', kind: 'value', requests: 1, differences: 1, endpoints: ['GET /Orders'] },
    ]);
    const [format] = grouped.patterns;
    expect(format!.examples).toHaveLength(MAX_EXAMPLES);
    expect(format!.examples.map((example) => example.request)).toEqual([
      'GET /Observation?patient=1',
      'GET /Observation?patient=2',
      'GET /Observation?patient=3',
    ]);
    expect(format!.examples[0]).toEqual({
      request: 'GET /Observation?patient=1',
      path: '$.entry[full_url=/Observation/1].resource.issued',
      left: '"2020-01-10T09:30:00-05:00"',
      right: '"2020-01-10T14:30:00.000+00:00"',
    });
    expect(grouped.outcome).toBe('differs');
    expect(grouped.endpoints.map(({ endpoint, verdict, requests, open }) => [endpoint, verdict, requests, open])).toEqual([
      ['GET /Observation', 'differs', 6, 15],
      ['GET /Orders', 'differs', 1, 1],
      ['GET /api/DiagnosticReport/:id', 'differs', 1, 2],
    ]);
  });

  it('accepts what a rule names, with its reason, and keeps it in the report', () => {
    const rules = rulesFrom({
      accept: [
        { path: '$.entry[*].resource.issued', kind: 'format', reason: 'instants in UTC; clients parse them' },
        { path: '$[*].value', kind: 'format', reason: 'not this kind' },
        { path: 'status', kind: 'value', reason: 'matches nothing here' },
      ],
    });
    const grouped = groupReport(report(site()), rules.accept);
    expect(grouped.patterns.map(({ path, kind, standing, reason }) => [path, kind, standing, reason])).toEqual([
      ['$[*].value', 'value', 'open', undefined],
      ['$.entry[*].resource.issued', 'format', 'accepted', 'instants in UTC; clients parse them'],
    ]);
    expect(grouped.endpoints.map(({ endpoint, verdict }) => [endpoint, verdict])).toEqual([
      ['GET /Orders', 'differs'],
      ['GET /Observation', 'accepted'],
      ['GET /api/DiagnosticReport/:id', 'accepted'],
    ]);
    expect(grouped.unusedAcceptRules.map((rule) => rule.reason)).toEqual(['not this kind', 'matches nothing here']);
    const all = groupReport(report(site().slice(0, 6)), rules.accept);
    expect([all.outcome, exitCodeOf(all)]).toEqual(['accepted', 0]);
  });

  it('accepts a difference under the path a rule names, and status or a header by name', () => {
    const rules = rulesFrom({
      accept: [
        { path: '$..resource', kind: 'format', reason: 'r1' },
        { path: 'status', kind: 'value', reason: 'r2' },
      ],
    });
    const grouped = groupReport(report([...site().slice(0, 1), compared('GET', '/Orders?patient=2', [1], [1], DEFAULT_RULES, [200, 404])]), rules.accept);
    expect(grouped.patterns.map(({ path, standing, reason }) => [path, standing, reason])).toEqual([
      ['$.entry[*].resource.issued', 'accepted', 'r1'],
      ['status', 'accepted', 'r2'],
    ]);
    expect(() => rulesFrom({ accept: [{ path: '$.x', kind: 'format' }] })).toThrow(RulesError);
    expect(() => rulesFrom({ accept: [{ path: '$.x', kind: 'format', reason: '  ' }] })).toThrow(/reason/);
    expect(() => rulesFrom({ accept: [{ path: '$.x', kind: 'changed', reason: 'r' }] })).toThrow(RulesError);
    expect(() => rulesFrom({ accept: [{ path: 'x', kind: 'value', reason: 'r' }] })).toThrow(/accept rule "x"/);
  });

  it('leaves out of the verdict the paths that differ between two recordings of the old system, and reports them apart', () => {
    const idRules = { ...DEFAULT_RULES, compareBundleId: true };
    const target = [1, 2].map((patient) =>
      compared('GET', `/Observation?patient=${patient}`, observations('a', instants(1, 'offset')), observations('b', instants(1, 'offset')), idRules),
    );
    const second = [1, 2].map((patient) =>
      compared('GET', `/Observation?patient=${patient}`, observations('a', instants(1, 'offset')), observations('c', instants(1, 'offset')), idRules),
    );
    const grouped = groupReport(report(target, second.slice(0, 1)));
    expect(grouped.patterns).toEqual([]);
    expect(grouped.noise).toEqual({
      dir: 'noise',
      compared: 1,
      unmatched: 1,
      patterns: [
        {
          path: '$.id',
          kinds: ['value'],
          requests: 1,
          endpoints: ['GET /Observation'],
          leftOut: 2,
          examples: [{ request: 'GET /Observation?patient=1', path: '$.id', left: '"a"', right: '"c"' }],
        },
      ],
    });
    expect(grouped.endpoints).toEqual([{ endpoint: 'GET /Observation', verdict: 'identical', requests: 2, open: 0, accepted: 0, noise: 2 }]);
    expect(grouped.requests[0]!.differences.map(({ pattern, standing }) => [pattern, standing])).toEqual([['$.id', 'noise']]);
    expect(groupReport(report(target)).outcome).toBe('differs');
    // Noise on one endpoint hides nothing on another.
    const elsewhere = compared('GET', '/api/CarePlan?patient=1', observations('a', []), observations('d', []), idRules);
    const mixed = groupReport(report([...target, elsewhere], second.slice(0, 1)));
    expect(mixed.patterns.map(({ path, standing, endpoints }) => [path, standing, endpoints])).toEqual([['$.id', 'open', ['GET /api/CarePlan']]]);
    expect(mixed.endpoints.map(({ endpoint, verdict }) => [endpoint, verdict])).toEqual([
      ['GET /api/CarePlan', 'differs'],
      ['GET /Observation', 'identical'],
    ]);
  });
});

describe('the JSON report', () => {
  it('has each pattern with path, kind, requests and endpoints, the accepted, the noise, the verdicts and the outcome', () => {
    const rules = rulesFrom({ accept: [{ path: '$[*].value', kind: 'value', reason: 'a fix of the old system' }] });
    const comparisons = [
      compared('GET', '/Observation?patient=1', observations('a', ['2020-01-10T09:30:00-05:00']), observations('b', ['2020-01-10T14:30:00Z']), {
        ...DEFAULT_RULES,
        compareBundleId: true,
      }),
      compared('GET', '/Orders?patient=1', [{ value: 1 }], [{ value: 2 }]),
      compared('GET', '/Encounter/3', { id: '3' }, { id: '3' }),
    ];
    const noise = [compared('GET', '/Observation?patient=1', observations('a', []), observations('z', []), { ...DEFAULT_RULES, compareBundleId: true })];
    const grouped = groupReport(report(comparisons, noise), rules.accept);
    const data = JSON.parse(JSON.stringify(jsonReport(grouped))) as Record<string, unknown>;
    expect(data).toMatchObject({
      format: 'migration-diff/1',
      outcome: 'differs',
      exitCode: 1,
      summary: { requests: 3, requestsWithDifferences: 2, differences: 3 },
      patterns: [{ path: '$.entry[*].resource.issued', kind: 'format', requests: 1, differences: 1, endpoints: ['GET /Observation'] }],
      accepted: [{ path: '$[*].value', kind: 'value', requests: 1, endpoints: ['GET /Orders'], reason: 'a fix of the old system' }],
      noise: { dir: 'noise', compared: 1, unmatched: 2, patterns: [{ path: '$.id', kinds: ['value'], requests: 1, leftOut: 1 }] },
      endpoints: [
        { endpoint: 'GET /Observation', verdict: 'differs', requests: 1, open: 1, accepted: 0, noise: 1 },
        { endpoint: 'GET /Orders', verdict: 'accepted', requests: 1, open: 0, accepted: 1, noise: 0 },
        { endpoint: 'GET /Encounter/:id', verdict: 'identical', requests: 1, open: 0, accepted: 0, noise: 0 },
      ],
    });
    expect((data.requests as { request: string; differences: unknown[] }[]).map((r) => [r.request, r.differences])).toEqual([
      [
        'GET /Observation?patient=1',
        [
          { path: '$.id', pattern: '$.id', kind: 'value', standing: 'noise' },
          { path: '$.entry[full_url=/Observation/1].resource.issued', pattern: '$.entry[*].resource.issued', kind: 'format', standing: 'open' },
        ],
      ],
      ['GET /Orders?patient=1', [{ path: '$[0].value', pattern: '$[*].value', kind: 'value', standing: 'accepted' }]],
    ]);
  });
});

describe('endpoints', () => {
  it.each([
    ['GET', '/api/DiagnosticReport', 'GET /api/DiagnosticReport'],
    ['GET', '/api/DiagnosticReport/17', 'GET /api/DiagnosticReport/:id'],
    ['GET', '/Encounter/enc-a', 'GET /Encounter/:id'],
    ['GET', '/Practitioner/pract-1', 'GET /Practitioner/:id'],
    ['POST', '/api/AlleryIntolerance/_search', 'POST /api/AlleryIntolerance/_search'],
    ['GET', '/v2/Orders', 'GET /v2/Orders'],
    ['GET', '/files/2d1f6a2c-5b7e-4a47-9f1e-0c8d3b9a7e11', 'GET /files/:id'],
    ['GET', '/', 'GET /'],
    ['GET', '/Orders\n', 'GET /Orders\\x0a'],
  ] as const)('%s %s is %s', (method, path, endpoint) => {
    expect(endpointOf({ method, path })).toBe(endpoint);
  });
});
