/**
 * Site codes and the upstream profile on Workers: read from the bindings, they reach the pipeline
 * through the same assembly as on Node, and a bad one is named in the log (callers get a generic 503).
 */
import { describe, expect, inject, it } from 'vitest';
import { createWorker } from '../../src/entry/worker.ts';
import { captureWorkerLog } from './worker-log.ts';

const ctx = { waitUntil: () => {}, passThroughOnException: () => {} };

async function onWorker(bindings: Record<string, string>, path: string): Promise<Response> {
  return createWorker().fetch(new Request(`http://facade.test${path}`), { UPSTREAM_URL: inject('upstreamUrl'), UPSTREAM_TIMEOUT_MS: '5000', ...bindings }, ctx);
}

describe('site configuration on a Worker', () => {
  const log = captureWorkerLog();

  it("selects SDOHGoal and Assessments with the bindings' codes", async () => {
    const ours = (await (await onWorker({}, '/api/SDOHGoal?patient=1')).json()) as { entry: unknown[] };
    expect(ours.entry.length).toBeGreaterThan(0);
    const elsewhere = (await (
      await onWorker({ SDOH_GOAL_CATEGORY: 'http://other.example/categories|sdoh', UPSTREAM_PROFILE: 'oracle-health' }, '/api/SDOHGoal?patient=1')
    ).json()) as { entry: unknown[] };
    expect(elsewhere.entry).toEqual([]);
    const surveys = (await (await onWorker({}, '/api/Assessments?patient=1&access_token=t')).json()) as unknown[];
    const history = (await (await onWorker({ ASSESSMENT_CATEGORY: 'social-history' }, '/api/Assessments?patient=1&access_token=t')).json()) as unknown[];
    expect(history.length).toBeGreaterThan(0);
    expect(history.length).not.toBe(surveys.length);
    expect(log.requests().map((line) => [line.route, line.status])).toEqual([
      ['SDOHGoal.search', 200],
      ['SDOHGoal.search', 200],
      ['Assessments.search', 200],
      ['Assessments.search', 200],
    ]);
  });

  it('answers a bad profile or code 503, with the key named in the log only', async () => {
    for (const [key, value] of [
      ['UPSTREAM_PROFILE', 'cerner-millennium'],
      ['ASSESSMENT_CATEGORY', 'survey, exam'],
    ]) {
      const problems: string[] = [];
      const worker = createWorker((_level, _message, fields) => void problems.push(String(fields?.problems)));
      const response = await worker.fetch(
        new Request('http://facade.test/api/SDOHGoal?patient=1'),
        { UPSTREAM_URL: inject('upstreamUrl'), [key!]: value! },
        ctx,
      );
      expect(response.status).toBe(503);
      expect(JSON.stringify(await response.json())).not.toContain(key!);
      expect(problems.join()).toContain(`${key}:`);
    }
  });
});
