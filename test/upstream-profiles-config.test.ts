/**
 * Site codes and upstream profiles as configuration, without servers: bad values stop the start
 * naming the key, defaults change nothing, a site's key replaces the profile's item, and the
 * capabilities rank observation, site, statement and profile in that order.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.ts';
import { siteCodesOf } from '../src/site-codes.ts';
import { capabilitiesFrom, UpstreamCapabilities } from '../src/upstream/capabilities.ts';
import { problemsOf } from './support/config-problems.ts';
import { UPSTREAM_PROFILES, upstreamSetupFor } from '../src/upstream/profiles.ts';

const keysOf = (env: Record<string, string>) => problemsOf(env).map((problem) => problem.split(':')[0]);
const setupOf = (env: Record<string, string>) => upstreamSetupFor(parseConfig(env));
const capabilitiesOf = (env: Record<string, string>) => new UpstreamCapabilities(new Map(), setupOf(env).stated);

describe('site codes', () => {
  it("default to today's codes", () => {
    expect(siteCodesOf(parseConfig({}))).toEqual({ 'assessment-category': 'survey', 'sdoh-goal-category': 'sdoh' });
  });

  it('take FHIR tokens: code, system|code, |code, comma-separated', () => {
    const config = parseConfig({
      ASSESSMENT_CATEGORY: 'http://terminology.hl7.org/CodeSystem/observation-category|survey,local-assess',
      SDOH_GOAL_CATEGORY: '|sdoh',
    });
    expect(siteCodesOf(config)['assessment-category']).toBe('http://terminology.hl7.org/CodeSystem/observation-category|survey,local-assess');
    expect(siteCodesOf(config)['sdoh-goal-category']).toBe('|sdoh');
  });

  it.each(['survey, exam', 'a|b|c', 'survey,', 'sys|', 'sur\\,vey', ' survey'])('refuse %j, naming the key', (value) => {
    expect(keysOf({ ASSESSMENT_CATEGORY: value })).toEqual(['ASSESSMENT_CATEGORY']);
    expect(keysOf({ SDOH_GOAL_CATEGORY: value })).toEqual(['SDOH_GOAL_CATEGORY']);
  });
});

describe('upstream profile and overrides', () => {
  it('default to no profile: nothing stated, the usual page size', () => {
    const setup = setupOf({});
    expect(setup.pageSize).toBe(1000);
    expect(setup.stated).toEqual({ site: {}, profile: {} });
  });

  it('refuse an unknown profile and malformed lists, naming each key', () => {
    expect(problemsOf({ UPSTREAM_PROFILE: 'cerner-millennium' })[0]).toMatch(/^UPSTREAM_PROFILE: must be one of hapi, medplum, .*oracle-health.*cerner/);
    expect(keysOf({ UPSTREAM_UNSUPPORTED_INCLUDES: 'Encounter.location' })).toEqual(['UPSTREAM_UNSUPPORTED_INCLUDES']);
    expect(keysOf({ UPSTREAM_UNSUPPORTED_REVINCLUDES: '!Provenance:target' })).toEqual(['UPSTREAM_UNSUPPORTED_REVINCLUDES']);
    expect(keysOf({ UPSTREAM_UNSUPPORTED_PARAMS: 'Goal:category, Specimen:patient' })).toEqual(['UPSTREAM_UNSUPPORTED_PARAMS']);
    expect(keysOf({ UPSTREAM_UNSUPPORTED_PARAMS: 'Goal:_id' })).toEqual(['UPSTREAM_UNSUPPORTED_PARAMS']);
    expect(keysOf({ UPSTREAM_PAGE_SIZE: '0' })).toEqual(['UPSTREAM_PAGE_SIZE']);
    expect(
      problemsOf({ UPSTREAM_UNSUPPORTED_INCLUDES: '*', UPSTREAM_UNSUPPORTED_REVINCLUDES: '*,!Provenance:target', UPSTREAM_UNSUPPORTED_PARAMS: 'none' }),
    ).toEqual([]);
  });

  it('oracle-health (also as cerner): no _include, _revinclude Provenance:target only, Goal without category, pages of 100', () => {
    for (const name of ['oracle-health', 'cerner']) {
      const capabilities = capabilitiesOf({ UPSTREAM_PROFILE: name });
      expect(capabilities.include('Encounter', 'Encounter:patient')).toBe('no');
      expect(capabilities.revinclude('Encounter', 'DocumentReference:encounter')).toBe('no');
      expect(capabilities.revinclude('Observation', 'Provenance:target')).toBe('unknown');
      expect(capabilities.param('Goal', 'category')).toBe('no');
      expect(capabilities.param('Goal', 'patient')).toBe('unknown');
      expect(setupOf({ UPSTREAM_PROFILE: name }).pageSize).toBe(100);
    }
    expect(capabilitiesOf({ UPSTREAM_PROFILE: 'healthlake' }).param('Specimen', 'patient')).toBe('no');
    expect(setupOf({ UPSTREAM_PROFILE: 'firely' }).pageSize).toBe(50);
    expect(setupOf({ UPSTREAM_PROFILE: 'aidbox' }).pageSize).toBe(1000);
  });

  it("lets a site's key replace the profile's item, and only that item", () => {
    const env = {
      UPSTREAM_PROFILE: 'oracle-health',
      UPSTREAM_UNSUPPORTED_PARAMS: 'none',
      UPSTREAM_UNSUPPORTED_INCLUDES: 'Encounter:location',
      UPSTREAM_PAGE_SIZE: '500',
    };
    const capabilities = capabilitiesOf(env);
    expect(capabilities.param('Goal', 'category')).toBe('unknown');
    expect(capabilities.include('Encounter', 'Encounter:patient')).toBe('unknown');
    expect(capabilities.include('Encounter', 'Encounter:location')).toBe('no');
    expect(capabilities.revinclude('Encounter', 'DocumentReference:encounter')).toBe('no');
    expect(setupOf(env).pageSize).toBe(500);
  });

  it('ranks observation over the site, the site over the statement, the statement over the profile', () => {
    const statement = {
      resourceType: 'CapabilityStatement',
      rest: [{ mode: 'server', resource: [{ type: 'Goal', searchParam: [{ name: 'category' }, { name: 'patient' }], searchInclude: ['Goal:patient'] }] }],
    };
    const profileOnly = capabilitiesFrom(statement, { profile: { unsupportedParams: ['Goal:category'], unsupportedIncludes: ['*'] } });
    expect(profileOnly.param('Goal', 'category')).toBe('yes');
    expect(profileOnly.include('Goal', 'Goal:patient')).toBe('yes');
    expect(profileOnly.include('Encounter', 'Encounter:patient')).toBe('no');
    const site = capabilitiesFrom(statement, { site: { unsupportedParams: ['Goal:category'], unsupportedIncludes: ['Goal:patient'] } });
    expect(site.param('Goal', 'category')).toBe('no');
    expect(site.include('Goal', 'Goal:patient')).toBe('no');
    site.observe('include', 'Goal', 'Goal:patient', true);
    expect(site.include('Goal', 'Goal:patient')).toBe('yes');
  });

  it('cites its UPSTREAMS.md section in every profile', () => {
    for (const [name, profile] of Object.entries(UPSTREAM_PROFILES)) expect(profile.source, name).toMatch(/^UPSTREAMS\.md §\d+ /);
  });
});
