/**
 * JSON-path ignore rules and the structural, FHIR-aware comparison.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES, rulesFrom, RulesError, type DiffRules } from '../../kit/diff-rules.ts';
import { diffJson, entryLabels } from '../../kit/json-diff.ts';
import { keySegment, labelSegment, parsePathRule, PathRuleError, renderPath, ruleMatches } from '../../kit/json-path.ts';
import { parseJsonText } from '../../kit/json-text.ts';

const path = (...segments: (string | number)[]) =>
  segments.map((segment) => (typeof segment === 'number' || segment.includes('=') ? labelSegment(segment) : keySegment(segment)));

describe('JSON path rules', () => {
  it.each([
    ['$.id', path('id'), true],
    ['$.id', path('entry', 0, 'resource', 'id'), false],
    ['$.entry[*].resource.meta.lastUpdated', path('entry', 'full_url=/Observation/5', 'resource', 'meta', 'lastUpdated'), true],
    ['$.entry[*].resource.meta.lastUpdated', path('entry', 'full_url=/Observation/5', 'resource', 'meta'), false],
    ['$..lastUpdated', path('entry', 3, 'resource', 'meta', 'lastUpdated'), true],
    ['$..lastUpdated', path('lastUpdated'), true],
    ['$..meta.lastUpdated', path('x', 'meta', 'lastUpdated'), true],
    ['$..meta.lastUpdated', path('x', 'lastUpdated'), false],
    ['$.entry[full_url=/Observation/5]', path('entry', 'full_url=/Observation/5'), true],
    ['$.entry[full_url=/Observation/5]', path('entry', 'full_url=/Observation/6'), false],
    ['$[0].meta', path(0, 'meta'), true],
    ['$.*.meta', path('anything', 'meta'), true],
    ["$['a.b'].c", path('a.b', 'c'), true],
    ['$..[*].id', path('entry', 2, 'id'), true],
  ])('%s matches %j: %s', (rule, concrete, expected) => {
    expect(ruleMatches(parsePathRule(rule), concrete)).toBe(expected);
  });

  it('refuses what is not the syntax', () => {
    for (const bad of ['id', '$.', '$[', '$[]', '$..', '$x']) expect(() => parsePathRule(bad), bad).toThrow(PathRuleError);
  });

  it('renders paths readably', () => {
    expect(renderPath(path('entry', 'full_url=/Observation/5', 'resource', 'code', 'coding', 0, 'code'))).toBe(
      '$.entry[full_url=/Observation/5].resource.code.coding[0].code',
    );
    expect(renderPath(path('a b'))).toBe("$['a b']");
  });
});

describe('rules files', () => {
  it('takes every member, each optional', () => {
    const rules = rulesFrom({ ignore: ['$..lastUpdated'], keyOrder: true, matchEntriesBy: 'position', compareBundleId: true, headers: ['Content-Type'] });
    expect(rules).toMatchObject({ keyOrder: true, matchEntriesBy: 'position', compareBundleId: true, headers: ['content-type'] });
    expect(rulesFrom({})).toEqual(DEFAULT_RULES);
  });

  it('names what is wrong', () => {
    expect(() => rulesFrom({ ignore: ['lastUpdated'] })).toThrow(RulesError);
    expect(() => rulesFrom({ keyorder: true })).toThrow(/keyorder/);
    expect(() => rulesFrom({ matchEntriesBy: 'id' })).toThrow(RulesError);
  });

  it('refuses headers the kit never records (they would compare nothing)', () => {
    expect(rulesFrom({ headers: ['ETag', 'content-type'] }).headers).toEqual(['etag', 'content-type']);
    expect(() => rulesFrom({ headers: ['content-type', 'Last-Modified'] })).toThrow(/"last-modified" never recorded/);
  });
});

function diff(left: unknown, right: unknown, rules: Partial<DiffRules> = {}) {
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  return diffJson(parseJsonText(text(left)), parseJsonText(text(right)), { ...DEFAULT_RULES, ...rules }).map((d) => `${d.kind} ${d.path}`);
}

const bundle = (id: string, entries: { full_url: string; resource: Record<string, unknown> }[]) => ({
  resourceType: 'Bundle',
  id,
  type: 'searchset',
  entry: entries,
  total: entries.length,
});
const observation = (id: string, value: unknown = 'final') => ({
  full_url: `/Observation/${id}`,
  resource: { resourceType: 'Observation', id, status: value },
});

describe('diffJson', () => {
  it('compares numbers as written', () => {
    expect(diff('{"v":1.50}', '{"v":1.5}')).toEqual(['changed $.v']);
    expect(diff('{"v":1.50}', '{"v":1.50}')).toEqual([]);
    expect(diff('{"v":1}', '{"v":"1"}')).toEqual(['changed $.v']);
  });

  it('ignores the Bundle id and key order by default, and reports them when asked', () => {
    const left = bundle('a', [observation('1')]);
    const right = { total: 1, type: 'searchset', resourceType: 'Bundle', id: 'b', entry: [observation('1')] };
    expect(diff(left, right)).toEqual([]);
    expect(diff(left, right, { compareBundleId: true, keyOrder: true })).toEqual(['key-order $', 'changed $.id']);
    expect(diff({ id: 'a' }, { id: 'b' })).toEqual(['changed $.id']); // only a Bundle's id is generated per response
  });

  it('matches Bundle entries by full_url: a reordered entry is no difference, a missing or extra one is', () => {
    const left = bundle('a', [observation('1'), observation('2'), observation('3')]);
    expect(diff(left, bundle('b', [observation('3'), observation('1'), observation('2')]))).toEqual([]);
    expect(diff(left, bundle('b', [observation('3'), observation('1', 'amended'), observation('4')]))).toEqual([
      'changed $.entry[full_url=/Observation/1].resource.status',
      'missing $.entry[full_url=/Observation/2]',
      'extra $.entry[full_url=/Observation/4]',
    ]);
    expect(diff(left, bundle('b', [observation('2'), observation('1'), observation('3')]), { matchEntriesBy: 'position' })).toEqual([
      'changed $.entry[0].full_url',
      'changed $.entry[0].resource.id',
      'changed $.entry[1].full_url',
      'changed $.entry[1].resource.id',
    ]);
  });

  it('falls back to the resource id when full_url has no id, then to position, numbering repeats', () => {
    const entries = [
      { full_url: '/Observation/', resource: { resourceType: 'Observation', id: '7' } },
      { full_url: '/Observation/', resource: { resourceType: 'Observation' } },
      { full_url: '/Observation/9', resource: {} },
      { full_url: '/Observation/9', resource: {} },
    ];
    expect(entryLabels(parseJsonText(JSON.stringify(entries)) as never)).toEqual([
      'id=Observation/7',
      'position=1',
      'full_url=/Observation/9',
      'full_url=/Observation/9#2',
    ]);
  });

  it('matches entries without an id by content, then by position; so are entries with a repeated label', () => {
    const report = (status: string, code: string) => ({
      full_url: '/DiagnosticReport/',
      resource: { resourceType: 'DiagnosticReport', status, code: { text: code } },
    });
    const left = bundle('a', [report('final', 'CBC'), report('final', 'Lipids'), report('amended', 'TSH')]);
    expect(diff(left, bundle('b', [report('amended', 'TSH'), report('final', 'Lipids'), report('final', 'CBC')]))).toEqual([]);
    expect(diff(left, bundle('b', [report('amended', 'TSH'), report('preliminary', 'Lipids'), report('final', 'CBC')]))).toEqual([
      'changed $.entry[position=2].resource.status',
    ]);
    expect(diff(left, bundle('b', [report('final', 'CBC'), report('amended', 'TSH')]))).toEqual(['missing $.entry[position=2]', 'changed $.total']);
    // Equal once the ignore rules are applied is equal.
    const stamped = (code: string, at: string) => ({
      full_url: '/DiagnosticReport/',
      resource: { resourceType: 'DiagnosticReport', code: { text: code }, meta: { lastUpdated: at } },
    });
    const ignore = [parsePathRule('$..meta.lastUpdated')];
    expect(diff(bundle('a', [stamped('CBC', '1'), stamped('TSH', '2')]), bundle('b', [stamped('TSH', '3'), stamped('CBC', '4')]), { ignore })).toEqual([]);
    // The same full_url twice: the two entries are matched by content too.
    const twice = (value: string) => ({ full_url: '/Observation/9', resource: { resourceType: 'Observation', valueString: value } });
    expect(diff(bundle('a', [twice('x'), twice('y')]), bundle('b', [twice('y'), twice('x')]))).toEqual([]);
    expect(diff(bundle('a', [twice('x'), twice('y')]), bundle('b', [twice('z'), twice('x')]))).toEqual([
      'changed $.entry[full_url=/Observation/9#2].resource.valueString',
    ]);
  });

  it('counts key order among the keys compared only: ignored keys and the Bundle id do not count', () => {
    const keyOrder = true;
    expect(diff('{"a":1,"x":1,"b":2}', '{"x":1,"a":1,"b":2}', { keyOrder, ignore: [parsePathRule('$.x')] })).toEqual([]);
    expect(diff('{"a":1,"x":1,"b":2}', '{"x":1,"b":2,"a":1}', { keyOrder, ignore: [parsePathRule('$.x')] })).toEqual(['key-order $']);
    expect(diff('{"resourceType":"Bundle","id":"a","type":"searchset"}', '{"id":"b","resourceType":"Bundle","type":"searchset"}', { keyOrder })).toEqual([]);
  });

  it('skips the id only of a body that is a Bundle on both sides', () => {
    expect(diff({ resourceType: 'Bundle', id: 'a' }, { resourceType: 'OperationOutcome', id: 'b' })).toEqual(['changed $.resourceType', 'changed $.id']);
    const inner = (id: string) => ({ resourceType: 'Bundle', id: 'outer', entry: [{ full_url: '/Bundle/1', resource: { resourceType: 'Bundle', id } }] });
    expect(diff(inner('x'), inner('y'))).toEqual(['changed $.entry[full_url=/Bundle/1].resource.id']);
  });

  it('compares other arrays by position', () => {
    expect(diff({ a: [1, 2, 3] }, { a: [1, 3] })).toEqual(['changed $.a[1]', 'missing $.a[2]']);
    expect(diff({ a: [1] }, { a: [1, { b: 2 }] })).toEqual(['extra $.a[1]']);
  });

  it('reports missing and extra members, and a change of type', () => {
    expect(diff({ a: 1, b: { c: 2 } }, { b: [2], d: null })).toEqual(['missing $.a', 'changed $.b', 'extra $.d']);
  });

  it('compares a string holding JSON as the JSON it holds', () => {
    const record = (name: string, status: string) => JSON.stringify({ patient_name: name, status });
    expect(diff({ value: record('A', 'finished') }, { value: record('A', 'planned') })).toEqual(['changed $.value.status']);
    expect(diff({ value: 'plain' }, { value: record('A', 'x') })).toEqual(['changed $.value']);
  });

  it('skips what the ignore rules name, subtrees included', () => {
    const left = bundle('a', [observation('1'), observation('2')]);
    const right = bundle('b', [observation('1', 'amended')]);
    expect(diff(left, right, { ignore: [parsePathRule('$.entry[*].resource.status'), parsePathRule('$.total')] })).toEqual([
      'missing $.entry[full_url=/Observation/2]',
    ]);
    expect(diff(left, right, { ignore: [parsePathRule('$.entry'), parsePathRule('$.total')] })).toEqual([]);
    expect(
      diff({ meta: JSON.stringify({ lastUpdated: 'x' }) }, { meta: JSON.stringify({ lastUpdated: 'y' }) }, { ignore: [parsePathRule('$..lastUpdated')] }),
    ).toEqual([]);
  });
});
