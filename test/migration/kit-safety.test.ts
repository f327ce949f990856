/**
 * The kit's smaller guards: base URL arguments, request lines that cannot forge output lines,
 * recording parse errors that quote nothing of a file, and how the emulator matches requests.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseUrl, UsageError } from '../../kit/cli.ts';
import { startEmulator } from '../../kit/emulator.ts';
import { parseRecording, RecordingError, recordingJson, requestLine, type Recording } from '../../kit/recordings.ts';
import { removeDirs, tempDir } from './kit-fixture.ts';

const dirs: string[] = [];
afterAll(async () => removeDirs(dirs));

describe('base URL arguments', () => {
  it('take an http or https base URL, with a path or not', () => {
    for (const url of ['http://localhost:8080', 'https://legacy.example.org/base/', 'http://[::1]:8090']) expect(baseUrl(url, 'from')).toBe(url);
  });

  it('refuse a query, a fragment and a user name or password, without repeating a password', () => {
    for (const url of ['http://legacy.example.org/?x=1', 'http://legacy.example.org?', 'http://legacy.example.org/#top', 'http://legacy.example.org#']) {
      expect(() => baseUrl(url, 'from'), url).toThrow(/without a query or fragment/);
    }
    for (const url of ['http://alice:s3cr3t-pw@legacy.example.org', 'https://alice@legacy.example.org/', 'http://:s3cr3t-pw@legacy.example.org']) {
      expect(() => baseUrl(url, 'from'), url).toThrow(UsageError);
      expect(() => baseUrl(url, 'from'), url).toThrow(/user name or password/);
      try {
        baseUrl(url, 'from');
      } catch (error) {
        expect((error as Error).message).not.toContain('s3cr3t');
      }
    }
    expect(() => baseUrl('ftp://legacy.example.org', 'from')).toThrow(/http or https/);
  });
});

describe('request lines', () => {
  it('show control characters escaped, so a request cannot forge or hide a line', () => {
    const line = requestLine({
      method: 'GET',
      path: '/Orders',
      query: [
        ['patient', '1\r\ncompared 0 requests\u001b[2K'],
        ['x', 'a\u202eb'],
      ],
    });
    expect(line).toBe('GET /Orders?patient=1\\x0d\\x0acompared 0 requests\\x1b[2K&x=a\\u202eb');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test asserts no raw control character is left.
    expect(line).not.toMatch(/[\u0000-\u001f\u202e]/);
  });
});

describe('recording files', () => {
  it('that are broken are named with a position, quoting nothing of their content', () => {
    const secret = 'Jane-Doe-1957';
    const broken = `{\n  "scenario": "x",\n  "bodyText": "${secret}\n}`;
    expect(() => parseRecording(broken, 'rec.json')).toThrow(RecordingError);
    expect(() => parseRecording(broken, 'rec.json')).toThrow(/^rec\.json: not JSON \(line 3, column \d+\)$/);
    const wrong = JSON.stringify({
      scenario: secret,
      endpoint: 'x',
      method: 'GET',
      path: '/x',
      query: [],
      withToken: false,
      status: 200,
      headers: {},
      bodyText: 5,
    });
    let message = '';
    try {
      parseRecording(
        wrong.replace('"bodyText":5', `"bodyText":5,"extra":"${secret}"`).replace(`"scenario":"${secret}"`, `"scenario":"${secret} x"`),
        'rec.json',
      );
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^rec\.json: not a recording: scenario: expected /);
    expect(message).not.toContain('Jane');
  });
});

describe('the emulator', () => {
  const recording = (scenario: string, query: [string, string][], bodyText: string): Recording => ({
    scenario,
    endpoint: 'Orders',
    method: 'GET',
    path: '/Orders',
    query,
    withToken: true,
    status: 200,
    headers: { 'content-type': 'application/json' },
    bodyText,
  });

  it('matches parameters as pairs, drops access_token whatever its case, and warns about two recordings of one request', async () => {
    const dir = await tempDir('emulator-keys');
    dirs.push(dir);
    await writeFile(
      join(dir, 'Orders__a.json'),
      recordingJson(
        recording(
          'a',
          [
            ['patient', '1'],
            ['code', 'b=c'],
          ],
          '"first"',
        ),
      ),
    );
    await writeFile(
      join(dir, 'Orders__b.json'),
      recordingJson(
        recording(
          'b',
          [
            ['code', 'b=c'],
            ['patient', '1'],
          ],
          '"second"',
        ),
      ),
    );
    const warnings: string[] = [];
    const emulator = await startEmulator({ recordingsDir: dir, warn: (line) => warnings.push(line) });
    try {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/Orders__a\.json and .*Orders__b\.json answer the same request .*Orders__a\.json is served/);
      const served = await fetch(`${emulator.url}/Orders?patient=1&code=b%3Dc&ACCESS_TOKEN=t`);
      expect([served.status, await served.text()]).toEqual([200, '"first"']);
      // The same text joined with "=" but other pairs: the name is "code=b", the value "c".
      expect((await fetch(`${emulator.url}/Orders?patient=1&code%3Db=c&access_token=t`)).status).toBe(404);
    } finally {
      await emulator.close();
    }
  });
});
