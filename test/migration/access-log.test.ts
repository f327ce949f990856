/**
 * Requests from the old system's access log: lines of both formats read, tokens stripped (and the
 * request's token-or-not kept), lines that cannot be replayed counted by reason, requests
 * deduplicated and sampled per endpoint, large logs streamed, and the requests file written.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_RESOURCES, readLogLine, requestKey, type LoggedRequest } from '../../kit/access-log.ts';
import { LogFileError, requestsFileText, selectionReport, selectLogRequests, type LogSelection } from '../../kit/log-requests.ts';
import { parseRequestsFile } from '../../kit/requests-file.ts';
import { ROUTES } from '../../src/routes.ts';
import { servedPaths } from '../../src/served-paths.ts';
import { removeDirs, tempDir } from './kit-fixture.ts';
import { combinedLine, commonLine, legacyToken, writeLog } from './log-fixture.ts';

const token = legacyToken();
const otherToken = legacyToken();
let dir: string;

beforeAll(async () => {
  dir = await tempDir('access-log');
});
afterAll(async () => removeDirs([dir]));

function kept(line: string, knownTokens: string[] = []): LoggedRequest {
  const verdict = readLogLine(line, knownTokens);
  if (verdict.request === undefined) throw new Error(`skipped: ${verdict.skipped}`);
  return verdict.request;
}

function expectNoToken(text: string, what: string): void {
  for (const secret of [token, otherToken]) expect(text.includes(secret), what).toBe(false);
}

describe('a log line', () => {
  it('of the common and the combined format is read as the request it logged', () => {
    expect(kept(commonLine('GET /api/DiagnosticReport?patient=1&start_date=2024-01-01 HTTP/1.1'))).toEqual({
      method: 'GET',
      path: '/api/DiagnosticReport',
      query: [
        ['patient', '1'],
        ['start_date', '2024-01-01'],
      ],
      withToken: false,
      endpoint: 'GET /api/DiagnosticReport',
    });
    expect(kept(combinedLine('GET /Encounter/pdex-1.2?patient=1 HTTP/2.0', 404))).toEqual({
      method: 'GET',
      path: '/Encounter/pdex-1.2',
      query: [['patient', '1']],
      withToken: false,
      endpoint: 'GET /Encounter/:id',
    });
    // HTTP/0.9 has no protocol; the fields before the time may be more or fewer (a virtual host first), or hold spaces.
    expect(kept('legacy.example.org:443 127.0.0.1 - alice smith [10/Oct/2026:13:55:36 -0400] "GET /Orders?patient=2" 304 -').endpoint).toBe('GET /Orders');
    expect(kept(commonLine('GET /CarePlan/_search?patient=1 HTTP/1.1')).endpoint).toBe('GET /CarePlan/_search');
  });

  it('is kept for every GET path the service serves, and the kit knows the same resources as the route table', () => {
    for (const { route, path } of servedPaths(ROUTES)) {
      const verdict = readLogLine(commonLine(`${route.method} ${path.replace(':id', '17')}?patient=1 HTTP/1.1`));
      if (route.method === 'POST') expect(verdict.skipped, path).toBe('post-form-body');
      else expect(verdict.request?.endpoint, path).toBe(`GET ${path}`);
    }
    const routeResources = new Set(ROUTES.map((route) => route.path.replace(/^\/api/, '').split('/')[1]));
    expect([...LEGACY_RESOURCES].sort()).toEqual([...routeResources].sort());
  });

  it('has its parameters in one canonical order: by name, the values of one name in their order', () => {
    const a = kept(commonLine('GET /Observation?patient=1&date=ge2024&code=x&date=le2025 HTTP/1.1'));
    const b = kept(commonLine('GET /Observation?date=ge2024&code=x&date=le2025&patient=1 HTTP/1.1'));
    expect(a.query).toEqual([
      ['code', 'x'],
      ['date', 'ge2024'],
      ['date', 'le2025'],
      ['patient', '1'],
    ]);
    expect(requestKey(a)).toBe(requestKey(b));
    const swapped = kept(commonLine('GET /Observation?patient=1&date=le2025&code=x&date=ge2024 HTTP/1.1'));
    expect(requestKey(swapped)).not.toBe(requestKey(a));
  });
});

describe('tokens', () => {
  const withToken = (query: string) => kept(commonLine(`GET /api/DiagnosticReport?${query} HTTP/1.1`));

  it('are taken out of the query, whatever spelling or encoding of access_token, and the request keeps whether it had one', () => {
    const encodedValue = [...token].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('');
    const cases: [string, boolean][] = [
      [`patient=1&access_token=${token}`, true],
      [`access_token=${token}&patient=1`, true],
      [`patient=1&access%5Ftoken=${token}`, true],
      [`patient=1&%61ccess_token=${encodedValue}`, true],
      [`patient=1&access_token=${encodedValue}`, true],
      // Names the service does not read as the token: stripped all the same, and the request has no token.
      [`patient=1&ACCESS_TOKEN=${token}`, false],
      [`patient=1&Access%5FToken=${token}`, false],
      // Blank counts as absent, as in the service.
      ['patient=1&access_token=', false],
      ['patient=1&access_token=%20', false],
    ];
    for (const [query, hasToken] of cases) {
      const request = withToken(query);
      expect(request.query, query).toEqual([['patient', '1']]);
      expect(request.withToken, query).toBe(hasToken);
      expectNoToken(JSON.stringify(request), query);
    }
  });

  it('standing anywhere else in the request leave the line out, however encoded', () => {
    const cases = [
      `/api/DiagnosticReport?patient=${token}&access_token=${token}`,
      `/api/DiagnosticReport/${token}?access_token=${token}`,
      `/api/DiagnosticReport/${encodeURIComponent(encodeURIComponent(token))}?access_token=${token}`,
      `/api/DiagnosticReport?code=x${encodeURIComponent(`%${token}`)}&access_token=${token}`,
      `/api/DiagnosticReport?${token}&access_token=${token}`,
      // The word itself, outside the parameter: a nested URL or a matrix parameter may carry a token.
      `/api/DiagnosticReport?patient=1&next=${encodeURIComponent('/x?access_token=abc')}`,
      '/api/DiagnosticReport/1;access_token=abc',
      '/api/DiagnosticReport/1%3Baccess%255Ftoken=abc',
      '/api/DiagnosticReport/1%3B%2541CCESS%255FTOKEN=abc',
      '/api/DiagnosticReport?patient=1&note=my%20Access_Token',
    ];
    for (const target of cases) expect(readLogLine(commonLine(`GET ${target} HTTP/1.1`)).skipped, target).toBe('token-elsewhere');
    // A token with `+` is looked for in both spellings (a query decodes `+` as a space).
    const plusToken = `${token.slice(0, 20)}+${token.slice(21)}`;
    expect(readLogLine(commonLine(`GET /Orders?patient=${plusToken}&access_token=${plusToken} HTTP/1.1`)).skipped).toBe('token-elsewhere');
    // The kit's own tokens (from the environment) are looked for in lines without access_token too.
    expect(readLogLine(commonLine(`GET /Orders?patient=1&code=${otherToken} HTTP/1.1`), [otherToken]).skipped).toBe('token-elsewhere');
    // Short values are no secret, as in the service: `access_token=t` does not refuse `category=vital-signs`.
    expect(withToken('category=vital-signs&access_token=t').withToken).toBe(true);
  });

  it('given twice leave the line out: the request cannot be replayed as sent', () => {
    for (const query of [`access_token=${token}&access_token=${otherToken}`, `access_token=${token}&ACCESS_TOKEN=${token}`]) {
      expect(readLogLine(commonLine(`GET /Orders?patient=1&${query} HTTP/1.1`)).skipped, query).toBe('repeated-token');
    }
  });
});

describe('selecting requests from a log', () => {
  const skippedLines: [string, string][] = [
    ['garbage', 'malformed-line'],
    ['', 'malformed-line'],
    ['127.0.0.1 - - [10/Oct/2026:13:55:36 -0400] "-" 408 0', 'unreadable-request'],
    [commonLine('GET /api/DiagnosticReport?patient=\\x22SKIPPED-PATIENT-1 HTTP/1.1', 400), 'unreadable-request'],
    [commonLine('\\x16\\x03\\x01\\x00', 400), 'unreadable-request'],
    [commonLine('POST /api/AlleryIntolerance/_search?patient=SKIPPED-PATIENT-2 HTTP/1.1'), 'post-form-body'],
    [commonLine('HEAD /api/DiagnosticReport?patient=1 HTTP/1.1'), 'other-method'],
    [commonLine('OPTIONS /Orders HTTP/1.1', 204), 'other-method'],
    [commonLine('get /Orders?patient=1 HTTP/1.1'), 'other-method'],
    [commonLine('GET /favicon.ico HTTP/1.1', 404), 'not-legacy-operation'],
    [commonLine('GET /metadata HTTP/1.1'), 'not-legacy-operation'],
    [commonLine('GET /api/Patient?patient=1 HTTP/1.1'), 'not-legacy-operation'],
    [commonLine('GET /api/DiagnosticReport/1/2 HTTP/1.1', 404), 'not-legacy-operation'],
    [commonLine(`GET /Orders?patient=SKIPPED-PATIENT-3&access_token=${token} HTTP/1.1`, 500), 'server-error'],
    [commonLine('GET /Orders?patient=1 HTTP/1.1', 503), 'server-error'],
    ['127.0.0.1 - - [10/Oct/2026:13:55:36 -0400] "GET /Orders?patient=1 HTTP/1.1" - -', 'other-status'],
    [commonLine(`GET /Orders?patient=SKIPPED-PATIENT-4&access_token=${token}&access_token=${otherToken} HTTP/1.1`), 'repeated-token'],
    [commonLine(`GET /Orders?patient=${token}&access_token=${token} HTTP/1.1`), 'token-elsewhere'],
  ];
  const keptLines = [
    combinedLine(`GET /api/DiagnosticReport?patient=1&access_token=${token} HTTP/1.1`),
    commonLine(`GET /api/DiagnosticReport?access_token=${otherToken}&patient=1 HTTP/1.1`),
    commonLine('GET /api/DiagnosticReport?patient=1 HTTP/1.1', 401),
    commonLine(`GET /api/DiagnosticReport/17?patient=1&access_token=${token} HTTP/1.1`, 404),
    combinedLine(`GET /api/DiagnosticReport?patient=1&access%5Ftoken=${token} HTTP/1.1`),
  ];
  let selection: LogSelection;

  beforeAll(async () => {
    selection = await selectLogRequests([await writeLog(dir, 'mixed.log', [...keptLines, ...skippedLines.map(([line]) => line)])]);
  });

  it('counts every skipped line by reason, with the first line numbers, and quotes none', () => {
    const expected = new Map<string, { lines: number; first: string[] }>();
    skippedLines.forEach(([, reason], index) => {
      const tally = expected.get(reason) ?? { lines: 0, first: [] };
      tally.lines += 1;
      if (tally.first.length < 3) tally.first.push(`${join(dir, 'mixed.log')}:${keptLines.length + index + 1}`);
      expected.set(reason, tally);
    });
    expect(new Map([...selection.skipped].sort())).toEqual(new Map([...expected].sort()));
    expect(selection.linesRead).toBe(keptLines.length + skippedLines.length);
    const report = selectionReport(selection).join('\n');
    expect(report).toMatch(/^read 23 log lines: 5 of legacy requests, 18 skipped$/m);
    expect(report).toContain('skipped 3 lines: request not "METHOD /path HTTP/x"');
    expect(report).not.toMatch(/SKIPPED-PATIENT|access_token=|x16/);
    expectNoToken(report, 'report');
  });

  it('keeps each distinct request once, with how many lines it stands for', () => {
    expect(selection.requests.map(({ request, lines }) => [requestKey(request), lines])).toEqual([
      [requestKey(kept(keptLines[0]!)), 3],
      [requestKey(kept(keptLines[2]!)), 1],
      [requestKey(kept(keptLines[3]!)), 1],
    ]);
    expect(selection.requests[0]!.firstSeen).toBe(`${join(dir, 'mixed.log')}:1`);
    expect(selectionReport(selection)).toContain('3 distinct requests kept, standing for 5 lines (2 repeats collapsed)');
    expect(selection.endpoints.get('GET /api/DiagnosticReport')).toEqual({ lines: 4, requests: 2, requestLines: 4 });
  });

  it('writes a requests file that reads back to the same requests, marks those without a token, and holds no token', () => {
    const text = requestsFileText(selection);
    expectNoToken(text, 'requests file');
    expect(text).not.toMatch(/access_token=|SKIPPED-PATIENT/i);
    expect(text).toContain('# 3 log lines, first at ');
    expect(text).toContain('GET /api/DiagnosticReport?patient=1   # no-token\n');
    const read = parseRequestsFile(text);
    expect(read.map(({ method, path, query, withToken }) => ({ method, path, query, withToken }))).toEqual(
      selection.requests.map(({ request: { method, path, query, withToken } }) => ({ method, path, query, withToken })),
    );
    expect(new Set(read.map((request) => request.scenario)).size).toBe(read.length);
    expect(parseRequestsFile(requestsFileText(selection)).map((request) => request.scenario)).toEqual(read.map((request) => request.scenario));
  });

  it('names an unreadable log by its file and the cause only', async () => {
    await expect(selectLogRequests([join(dir, 'missing.log')])).rejects.toThrow(/^access log .*missing\.log: ENOENT$/);
    const broken = join(dir, 'broken.log.gz');
    await writeFile(broken, gzipSync(`${keptLines.join('\n')}\n`).subarray(0, 40));
    await expect(selectLogRequests([broken])).rejects.toThrow(LogFileError);
  });
});

describe('sampling per endpoint', () => {
  /** 3 endpoints; per endpoint 40 distinct requests seen 1 to 5 times, with and without a token; in a scrambled order. */
  function trafficLines(): string[] {
    const lines: string[] = [];
    for (const path of ['/api/DiagnosticReport', '/Orders', '/Encounter/1']) {
      for (let patient = 0; patient < 40; patient += 1) {
        const tokenPart = patient % 4 === 0 ? '' : `&access_token=${patient % 2 === 0 ? token : otherToken}`;
        for (let seen = 0; seen <= patient % 5; seen += 1) lines.push(commonLine(`GET ${path}?patient=${patient}${tokenPart} HTTP/1.1`));
      }
    }
    return lines;
  }
  /** A fixed permutation (a linear congruential generator), so the test is the same every run. */
  function scrambled<T>(items: readonly T[]): T[] {
    const copy = [...items];
    let state = 12345;
    for (let index = copy.length - 1; index > 0; index -= 1) {
      state = (state * 1103515245 + 12345) % 2147483648;
      const other = state % (index + 1);
      [copy[index], copy[other]] = [copy[other]!, copy[index]!];
    }
    return copy;
  }
  const drawn = (selection: LogSelection) => selection.requests.map(({ request, lines }) => `${requestKey(request)} ${lines}`);

  it('keeps at most N requests per endpoint, each with its exact line count, the same whatever the order of the lines', async () => {
    const lines = trafficLines();
    const inOrder = await writeLog(dir, 'traffic.log', lines);
    const shuffled = await writeLog(dir, 'traffic-shuffled.log', scrambled(lines));
    const all = await selectLogRequests([inOrder]);
    const sampled = await selectLogRequests([inOrder], { sample: 5, seed: 'team-a' });
    expect(all.requests).toHaveLength(120);
    expect([...sampled.endpoints.values()].map((tally) => tally.requests)).toEqual([5, 5, 5]);
    expect(sampled.endpoints.get('GET /Orders')?.lines).toBe(all.endpoints.get('GET /Orders')?.lines);
    const fullCounts = new Map(all.requests.map(({ request, lines }) => [requestKey(request), lines]));
    for (const { request, lines: count } of sampled.requests) expect(count).toBe(fullCounts.get(requestKey(request)));
    expect(drawn(await selectLogRequests([shuffled], { sample: 5, seed: 'team-a' }))).toEqual(drawn(sampled));
    expect(drawn(await selectLogRequests([inOrder], { sample: 5, seed: 'team-a' }))).toEqual(drawn(sampled));
    expect(selectionReport(sampled)).toContain(
      '  GET /Encounter/:id: 120 lines, 5 requests kept (standing for '.concat(
        String(sampled.endpoints.get('GET /Encounter/:id')?.requestLines),
        ' of the lines)',
      ),
    );
  });

  it('draws another sample with another seed, and everything when N exceeds the distinct requests', async () => {
    const file = await writeLog(dir, 'traffic-seeds.log', trafficLines());
    const first = drawn(await selectLogRequests([file], { sample: 3, seed: 'a' }));
    const others = await Promise.all(['b', 'c', 'd'].map(async (seed) => drawn(await selectLogRequests([file], { sample: 3, seed }))));
    expect(others.some((other) => other.join() !== first.join())).toBe(true);
    const everything = await selectLogRequests([file], { sample: 1000 });
    expect(drawn(everything)).toEqual(drawn(await selectLogRequests([file])));
    await expect(selectLogRequests([file], { sample: 0 })).rejects.toThrow(RangeError);
  });
});

describe('a large log', () => {
  it('streams: 300,000 lines, and the same log gzipped, give the counts of every request', async () => {
    const file = join(dir, 'large.log');
    const out = createWriteStream(file);
    const patients = 1000;
    for (let index = 0; index < 300_000; index += 1) {
      const patient = index % patients;
      const tokenPart = patient % 10 === 0 ? '' : `&access_token=${token}`;
      if (!out.write(`${combinedLine(`GET /api/DiagnosticReport?start_date=2024-01-01&patient=${patient}${tokenPart} HTTP/1.1`)}\n`)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    const selection = await selectLogRequests([file], { knownTokens: [otherToken] });
    expect(selection.linesRead).toBe(300_000);
    expect(selection.requests).toHaveLength(patients);
    expect(selection.requests.every(({ lines }) => lines === 300)).toBe(true);
    expect(selection.requests.filter(({ request }) => !request.withToken)).toHaveLength(100);
    expectNoToken(requestsFileText(selection), 'requests file');

    const small = join(dir, 'small.log');
    await writeLog(
      dir,
      'small.log',
      Array.from({ length: 5000 }, (_, index) => commonLine(`GET /Orders?patient=${index % 50}&access_token=${token} HTTP/1.1`)),
    );
    await writeFile(`${small}.gz`, gzipSync(await readFile(small)));
    const gzipped = await selectLogRequests([`${small}.gz`]);
    expect([gzipped.linesRead, gzipped.requests.length, gzipped.requests[0]!.lines]).toEqual([5000, 50, 100]);
  }, 120_000);
});
