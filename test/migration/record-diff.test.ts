/**
 * The kit's whole workflow over real HTTP: record the service, serve the recordings with the
 * emulator, record the emulator, diff that against the service (no difference); then inject the
 * differences of the issue and check the diff reports exactly their paths, and its exit codes.
 */
import { readdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RULES, rulesFrom } from '../../kit/diff-rules.ts';
import { startEmulator, type RunningEmulator } from '../../kit/emulator.ts';
import { parseJsonText, serializeJson } from '../../kit/json-text.ts';
import { recordRequests } from '../../kit/record.ts';
import { recordingFileName, requestLine } from '../../kit/recordings.ts';
import { summarize } from '../../kit/diff-patterns.ts';
import { diffLive, diffRecordings, type DiffReport } from '../../kit/replay-diff.ts';
import { parseRequestsFile, type RequestSpec } from '../../kit/requests-file.ts';
import { startEmbeddedTestService, type EmbeddedTestService } from '../support/embedded-service.ts';
import { copyDir, filesOf, injectDifferences, kitRequests, readRecordingFile, removeDirs, runKitScript, tempDir, testToken } from './kit-fixture.ts';

let service: EmbeddedTestService;
let emulator: RunningEmulator;
let requests: RequestSpec[];
let fromService: string;
let fromEmulator: string;
const token = testToken();
const dirs: string[] = [];

beforeAll(async () => {
  service = await startEmbeddedTestService();
  requests = parseRequestsFile((await kitRequests(service)).text);
  fromService = await tempDir('service');
  fromEmulator = await tempDir('emulator');
  dirs.push(fromService, fromEmulator);
  await recordRequests({ from: service.url, requests, outDir: fromService, token });
  emulator = await startEmulator({ recordingsDir: fromService });
  await recordRequests({ from: emulator.url, requests, outDir: fromEmulator, token });
});
afterAll(async () => {
  await emulator?.close();
  await service?.close();
  await removeDirs(dirs);
});

/** Request line → the paths reported for it, for the requests that have differences. */
function pathsByRequest(report: DiffReport): Map<string, string[]> {
  return new Map(report.comparisons.filter((c) => c.differences.length > 0).map((c) => [c.request, c.differences.map((d) => d.path)]));
}

describe('record', () => {
  it('writes one file per request, named by endpoint and scenario, holding what the service answered', async () => {
    expect((await readdir(fromService)).sort()).toEqual(requests.map(recordingFileName).sort());
    const byId = await readRecordingFile(fromService, recordingFileName(requests[1]!));
    const answer = await service.get(`${requestLine(byId).split(' ')[1]}&access_token=${token}`);
    expect(byId).toMatchObject({
      scenario: 'dr-by-id',
      endpoint: `api-DiagnosticReport-${byId.path.split('/')[3]}`,
      method: 'GET',
      withToken: true,
      status: 200,
    });
    expect(byId.bodyText).toBe(await answer.text());
    expect(byId.headers).toEqual({
      'content-type': answer.headers.get('content-type'),
      etag: answer.headers.get('etag'),
      'cache-control': answer.headers.get('cache-control'),
    });
  });

  it('keeps the statuses of refusals, and the scenario flags', async () => {
    const statuses = new Map<string, [number, boolean]>();
    for (const request of requests) {
      const recording = await readRecordingFile(fromService, recordingFileName(request));
      statuses.set(recording.scenario, [recording.status, recording.withToken]);
    }
    expect(statuses.get('observation-no-token')).toEqual([401, false]);
    expect(statuses.get('dr-unknown')).toEqual([404, true]);
    expect(statuses.get('allergy-post')).toEqual([200, true]);
  });

  it('writes the token nowhere, and no access_token parameter', async () => {
    for (const dir of [fromService, fromEmulator]) {
      for (const [name, text] of await filesOf(dir)) {
        expect(text.includes(token), name).toBe(false);
        const recording = await readRecordingFile(dir, name);
        expect(
          recording.query.map(([parameter]) => parameter),
          name,
        ).not.toContain('access_token');
        expect(recording.requestBody ?? '', name).not.toContain('access_token');
      }
    }
  });

  it('reads bodies the parser gives back byte for byte (so edits of recordings change only what they edit)', async () => {
    for (const [name, text] of await filesOf(fromService)) {
      const { bodyText } = await readRecordingFile(fromService, name);
      expect(serializeJson(parseJsonText(bodyText)), name).toBe(bodyText);
      expect(text.endsWith('}\n')).toBe(true);
    }
  });
});

describe('emulate', () => {
  it('answers each recorded request with the recorded status, headers and body text', async () => {
    for (const request of requests) {
      const recording = await readRecordingFile(fromService, recordingFileName(request));
      const query = new URLSearchParams(recording.query);
      const init: RequestInit = { method: recording.method };
      if (recording.method === 'POST') {
        init.body = `${recording.requestBody}&access_token=other`;
        init.headers = { 'content-type': 'application/x-www-form-urlencoded' };
      } else if (recording.withToken) {
        query.append('access_token', 'any-token');
      }
      const answer = await fetch(`${emulator.url}${recording.path}?${query}`, init);
      expect(answer.status, recording.scenario).toBe(recording.status);
      expect(await answer.text()).toBe(recording.bodyText);
      for (const [name, value] of Object.entries(recording.headers)) expect(answer.headers.get(name)).toBe(value);
    }
  });

  it('matches parameters in any order, prefers the recording made with (or without) a token, and answers 404 otherwise', async () => {
    const search = await readRecordingFile(fromService, recordingFileName(requests[2]!));
    const reversed = new URLSearchParams([...search.query].reverse());
    expect((await fetch(`${emulator.url}${search.path}?${reversed}&access_token=x`)).status).toBe(200);
    expect((await fetch(`${emulator.url}${search.path}?${reversed}`, { headers: { authorization: 'Bearer x' } })).status).toBe(200);
    const patient = search.query[0]![1];
    expect((await fetch(`${emulator.url}/Observation?patient=${patient}`)).status).toBe(401);
    // Only the token-less answer of this search was recorded: it is served to a caller with a token too.
    expect((await fetch(`${emulator.url}/Observation?patient=${patient}&access_token=x`)).status).toBe(401);
    const missing = await fetch(`${emulator.url}/api/Nothing?patient=1`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-found' }] });
  });
});

describe('diff', () => {
  it('finds no difference between the emulator’s recordings and the service', async () => {
    const report = await diffRecordings({ recordingsDir: fromEmulator, target: service.url, token, rules: DEFAULT_RULES });
    expect(summarize(report)).toEqual({ requests: requests.length, requestsWithDifferences: 0, differences: 0 });
    expect(report.comparisons.map((c) => [c.leftStatus, c.rightStatus])).toEqual(report.comparisons.map((c) => [c.leftStatus, c.leftStatus]));
  });

  it('exits 0 from the command line when nothing differs, without printing the token', async () => {
    const run = await runKitScript('diff', ['--recordings', fromEmulator, '--target', service.url], { LEGACY_ACCESS_TOKEN: token });
    expect(run.stdout).toContain(`compared ${requests.length} requests`);
    expect(run.stdout).toContain('0 with differences, 0 differences');
    expect(`${run.stdout}${run.stderr}`).not.toContain(token);
    expect(run.code).toBe(0);
  });

  it('reports exactly the injected differences, and no reordered entry', async () => {
    const injected = await copyDir(fromEmulator, 'injected');
    dirs.push(injected);
    const expected = await injectDifferences(injected);
    const report = await diffRecordings({ recordingsDir: injected, target: service.url, token, rules: DEFAULT_RULES });
    expect(pathsByRequest(report)).toEqual(expected);
    const kinds = report.comparisons.flatMap((c) => c.differences.map((d) => d.kind));
    expect(kinds.sort()).toEqual(['changed', 'changed', 'changed', 'extra']);

    const run = await runKitScript('diff', ['--recordings', injected, '--target', service.url], { LEGACY_ACCESS_TOKEN: token });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('4 with differences, 4 differences');
    for (const [request, paths] of expected) for (const path of paths) expect(run.stdout).toContain(`${request} ${path}: `);
    expect(run.stdout).toMatch(/valueQuantity\.value: \d+\.\d+0 → \d+\.\d+\n/);
    expect(`${run.stdout}${run.stderr}`).not.toContain(token);
  });

  it('applies the rules: ignored paths drop their differences, key order counts when asked', async () => {
    const injected = await copyDir(fromEmulator, 'rules');
    dirs.push(injected);
    const expected = await injectDifferences(injected);
    const rules = rulesFrom({ ignore: ['$..valueQuantity', '$[*].conclusionCode'], headers: [] });
    const report = await diffRecordings({ recordingsDir: injected, target: service.url, token, rules });
    expect([...pathsByRequest(report).values()].flat().sort()).toEqual(
      [...expected.values()]
        .flat()
        .filter((p) => !/valueQuantity|conclusionCode/.test(p))
        .sort(),
    );
    const ordered = await diffRecordings({ recordingsDir: fromEmulator, target: service.url, token, rules: rulesFrom({ keyOrder: true }) });
    expect(summarize(ordered).differences).toBe(0);
  });

  it('compares two systems live from a requests file', async () => {
    const report = await diffLive({ left: emulator.url, right: service.url, requests, leftToken: token, rightToken: token, rules: DEFAULT_RULES });
    expect(summarize(report)).toEqual({ requests: requests.length, requestsWithDifferences: 0, differences: 0 });
  });

  it('keeps the order of the requests when sending several at once, and pairs each with its second recording', async () => {
    const report = await diffLive({
      left: emulator.url,
      right: service.url,
      requests,
      leftToken: token,
      rightToken: token,
      rules: DEFAULT_RULES,
      noiseDir: fromEmulator,
      concurrency: 5,
    });
    expect(report.comparisons.map((c) => c.request)).toEqual(requests.map(requestLine));
    expect(report.noise?.unmatched).toBe(0);
    expect(report.noise?.comparisons.map((c) => [c.request, c.differences])).toEqual(requests.map((r) => [requestLine(r), []]));
  });

  it('exits 2 on usage and network errors', async () => {
    const usage = await runKitScript('diff', ['--target', service.url], {});
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--recordings is required');
    const concurrency = await runKitScript('diff', ['--recordings', fromEmulator, '--target', service.url, '--concurrency', '0'], {
      LEGACY_ACCESS_TOKEN: token,
    });
    expect([concurrency.code, concurrency.stderr.includes('--concurrency must be a whole number')]).toEqual([2, true]);
    const noNoise = await runKitScript('diff', ['--recordings', fromEmulator, '--target', service.url, '--noise', `${fromEmulator}-absent`], {
      LEGACY_ACCESS_TOKEN: token,
    });
    expect([noNoise.code, noNoise.stderr.includes('ENOENT')]).toEqual([2, true]);
    const unreachable = await runKitScript('diff', ['--recordings', fromEmulator, '--target', `http://127.0.0.1:${await closedPort()}`], {
      LEGACY_ACCESS_TOKEN: token,
    });
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toContain('ECONNREFUSED');
    expect(unreachable.stderr).not.toContain(token);
  });
});

/** A loopback port nothing listens on (one just released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
