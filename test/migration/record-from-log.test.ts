/**
 * `npm run record -- --from-log` end to end, as a person runs it: an access log of the service's
 * own patients becomes a requests file and recordings of the real service (on its embedded FHIR
 * server, over real HTTP), with the statuses clients met, and neither the clients' token of the
 * log nor the kit's token anywhere in what it writes or prints.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingFileName } from '../../kit/recordings.ts';
import { parseRequestsFile } from '../../kit/requests-file.ts';
import { startEmbeddedTestService, type EmbeddedTestService, type LegacyBundle } from '../support/embedded-service.ts';
import { filesOf, readRecordingFile, removeDirs, runKitScript, tempDir } from './kit-fixture.ts';
import { combinedLine, commonLine, legacyToken, writeLog } from './log-fixture.ts';

const clientToken = legacyToken();
const kitToken = legacyToken();
let service: EmbeddedTestService;
let dir: string;
let log: string;
let patientId: string;
let reportId: string;

beforeAll(async () => {
  service = await startEmbeddedTestService();
  dir = await tempDir('from-log');
  const [patient] = await service.fhirSearch('Patient');
  patientId = patient!.id!;
  const reports = await service.getJson<LegacyBundle>(`/api/DiagnosticReport?patient=${patientId}`);
  reportId = reports.entry[0]!.full_url.split('/')[2]!;
  const p = patientId;
  log = await writeLog(dir, 'access.log', [
    combinedLine(`GET /api/DiagnosticReport?patient=${p}&access_token=${clientToken} HTTP/1.1`),
    commonLine(`GET /api/DiagnosticReport?access_token=${clientToken}&patient=${p} HTTP/1.1`),
    commonLine(`GET /Observation?patient=${p} HTTP/1.1`, 401),
    combinedLine(`GET /Observation?patient=${p}&access_token=${clientToken} HTTP/1.1`),
    commonLine(`GET /api/DiagnosticReport/${reportId}?patient=${p}&access%5Ftoken=${clientToken} HTTP/1.1`),
    commonLine(`GET /api/DiagnosticReport/999999?access_token=${clientToken} HTTP/1.1`, 404),
    commonLine(`GET /Encounter?patient=${p}&access_token=${clientToken} HTTP/1.1`),
    commonLine(`POST /api/AlleryIntolerance/_search HTTP/1.1`),
    commonLine(`GET /Orders?patient=${p}&access_token=${clientToken} HTTP/1.1`, 502),
    'not a log line',
    commonLine('GET /favicon.ico HTTP/1.1', 404),
    commonLine(`GET /Orders?patient=${clientToken}&access_token=${clientToken} HTTP/1.1`),
  ]);
});
afterAll(async () => {
  await service?.close();
  await removeDirs([dir]);
});

function expectNoToken(text: string, what: string): void {
  expect(text.includes(clientToken), `${what} holds the clients' token`).toBe(false);
  expect(text.includes(kitToken), `${what} holds the kit's token`).toBe(false);
}

describe('record --from-log', () => {
  it('writes the requests file and records each request with the status clients met, holding no token', async () => {
    const outDir = join(dir, 'recordings');
    const requestsFile = join(dir, 'requests.txt');
    const run = await runKitScript('record', ['--from-log', log, '--from', service.url, '--out', outDir, '--out-requests', requestsFile], {
      LEGACY_ACCESS_TOKEN: kitToken,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('read 12 log lines: 7 of legacy requests, 5 skipped');
    expect(run.stderr).toContain('6 distinct requests kept, standing for 7 lines (1 repeat collapsed)');
    expect(run.stderr).toMatch(/skipped 1 line: POST: its form body is not in the log .*access\.log:8\)/);
    expect(run.stderr).toContain('recorded 6 requests into');
    // Recorded without --redact: said, since the recordings then hold patient data as it was sent.
    expect(run.stderr).toContain('warning: recording without --redact');

    const requestsText = await readFile(requestsFile, 'utf8');
    const requests = parseRequestsFile(requestsText);
    expect((await readdir(outDir)).sort()).toEqual(requests.map(recordingFileName).sort());
    const outcomes = await Promise.all(
      requests.map(async (request) => {
        const recording = await readRecordingFile(outDir, recordingFileName(request));
        return `${recording.path} ${recording.withToken ? 'token' : 'no-token'} ${recording.status}`;
      }),
    );
    expect(outcomes.sort()).toEqual(
      [
        `/Encounter token 200`,
        `/Observation no-token 401`,
        `/Observation token 200`,
        `/api/DiagnosticReport token 200`,
        `/api/DiagnosticReport/${reportId} token 200`,
        `/api/DiagnosticReport/999999 token 404`,
      ].sort(),
    );
    const search = await readRecordingFile(outDir, recordingFileName(requests.find((request) => request.path === '/api/DiagnosticReport')!));
    expect(search.query).toEqual([['patient', patientId]]);
    expect(search.bodyText).toMatch(/^\{"resourceType":"Bundle"/);

    for (const [name, text] of await filesOf(outDir)) {
      expectNoToken(text, name);
      expect(JSON.stringify((await readRecordingFile(outDir, name)).query), name).not.toMatch(/access_token/i);
    }
    expectNoToken(requestsText, 'requests file');
    expectNoToken(run.stdout + run.stderr, 'output');
  });

  it('with --sample and --out-requests only, writes the sampled list and records nothing', async () => {
    const requestsFile = join(dir, 'sampled.txt');
    const run = await runKitScript('record', ['--from-log', log, '--sample', '1', '--seed', 'review-1', '--out-requests', requestsFile], {
      LEGACY_ACCESS_TOKEN: kitToken,
    });
    expect(run.code, run.stderr).toBe(0);
    const requests = parseRequestsFile(await readFile(requestsFile, 'utf8'));
    // One per endpoint: the DiagnosticReport search, the read, Observation (with or without token), Encounter.
    expect(requests).toHaveLength(4);
    expect(new Set(requests.map((request) => request.path.replace(/^\/api\/DiagnosticReport\/.+$/, '/api/DiagnosticReport/:id'))).size).toBe(4);
    expect(run.stderr).toContain('sampled at most 1 per endpoint (seed "review-1")');
    expect(run.stderr).not.toContain('recorded');
    expectNoToken(run.stdout + run.stderr, 'output');
    expect((await readdir(dir)).sort()).toEqual(['access.log', 'recordings', 'requests.txt', 'sampled.txt']);
  });

  it('refuses mixed or incomplete arguments as usage errors', async () => {
    const both = await runKitScript('record', ['--from-log', log, '--requests', log, '--out-requests', join(dir, 'x.txt')], {});
    expect([both.code, both.stderr]).toEqual([2, expect.stringContaining('--requests and --from-log exclude each other')]);
    const seedAlone = await runKitScript('record', ['--from-log', log, '--seed', 'x', '--out-requests', join(dir, 'x.txt')], {});
    expect([seedAlone.code, seedAlone.stderr]).toEqual([2, expect.stringContaining('--seed goes with --sample')]);
    const noOutput = await runKitScript('record', ['--from-log', log, '--from', service.url], {});
    expect([noOutput.code, noOutput.stderr]).toEqual([2, expect.stringContaining('--out is required')]);
  });
});
