/**
 * The token is found however an answer writes it (plain, inside a longer word, percent-encoded in
 * every usual way, encoded twice, JSON-escaped): `record` refuses such an answer, and `diff`
 * scrubs it from each answer as it arrives, so no part of it reaches the console or the report.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonText } from '../../kit/json-text.ts';
import { recordRequests } from '../../kit/record.ts';
import { recordingJson, RecordingError, type Recording } from '../../kit/recordings.ts';
import { parseRequestsFile } from '../../kit/requests-file.ts';
import { containsToken, scrubToken } from '../../kit/token-scan.ts';
import { ECHO_FORMS, encodableToken, NO_TOKEN_BODY, startEchoServer, tokenSlices, type EchoServer } from './echo-server.ts';
import { removeDirs, runKitScript, tempDir } from './kit-fixture.ts';

const token = encodableToken();
const otherToken = encodableToken();
const forms = Object.keys(ECHO_FORMS);
let echo: EchoServer;
const dirs: string[] = [];

beforeAll(async () => {
  echo = await startEchoServer();
});
afterAll(async () => {
  await echo?.close();
  await removeDirs(dirs);
});

/** No part of either token: neither whole, nor a 10-character slice of it. */
function expectNoTokenIn(text: string, what: string): void {
  for (const secret of [token, otherToken]) {
    expect(text.includes(secret), what).toBe(false);
    for (const slice of tokenSlices(secret)) expect(text.includes(slice), `${what} holds ${slice}`).toBe(false);
  }
}

describe('finding the token', () => {
  it.each(forms)('finds it written %s, and scrubs it leaving JSON valid', (form) => {
    const text = `{"url":"https://x/next?access_token=${ECHO_FORMS[form]!(token)}&page=2"}`;
    expect(containsToken(text, token)).toBe(true);
    const scrubbed = scrubToken(text, token);
    expect(containsToken(scrubbed, token)).toBe(false);
    expectNoTokenIn(scrubbed, form);
    expect(scrubbed).toMatch(/^\{"url":"https:\/\/x\/next\?access_token=.*\[token\].*&page=2"\}$/);
    expect(() => parseJsonText(scrubbed)).not.toThrow();
  });

  it('finds it as part of a longer word, and only where it is', () => {
    expect(containsToken(`x${token}y`, token)).toBe(true);
    expect(scrubToken(`a=x${token}y b`, token)).toBe('a=x[token]y b');
    expect(containsToken(token.slice(0, -1), token)).toBe(false);
    expect(containsToken(NO_TOKEN_BODY, token)).toBe(false);
    expect(scrubToken('100% sure, %zz and %E9 stay', token)).toBe('100% sure, %zz and %E9 stay');
    expect(containsToken('anything', undefined)).toBe(false);
  });
});

describe('record', () => {
  it.each(
    forms.flatMap((form) => [
      ['echo', form],
      ['echo-header', form],
    ]),
  )('refuses an answer echoing the token: /%s/%s', async (kind, form) => {
    const outDir = await tempDir('echo-record');
    dirs.push(outDir);
    const requests = parseRequestsFile(`GET /${kind}/${form}   # echoed\n`);
    const recording = recordRequests({ from: echo.url, requests, outDir, token });
    await expect(recording).rejects.toThrow(RecordingError);
    await expect(recording).rejects.toThrow(/contains the access token/);
    expect(await readdir(outDir)).toEqual([]);
  });

  it('records an answer that does not hold it', async () => {
    const outDir = await tempDir('echo-clean');
    dirs.push(outDir);
    const requests = parseRequestsFile('GET /echo/plain   # without-token no-token\nGET /other/plain   # other\n');
    const { files } = await recordRequests({ from: echo.url, requests, outDir, token });
    expect(files).toHaveLength(2);
  });
});

describe('diff', () => {
  const requestLines = forms.flatMap((form) => [`GET /echo/${form}   # body-${form}`, `GET /echo-header/${form}   # header-${form}`]);

  it('scrubs the token from the target’s answers before comparing or cutting anything (recordings mode)', async () => {
    const dir = await tempDir('echo-diff');
    dirs.push(dir);
    // One recording holds the legacy token (a hand-edited file), where the report's cut would fall: scrubbed too.
    const holdingToken = NO_TOKEN_BODY.replace('/x?page=2', `https://old.example.org/next?page=2&access_token=${token}`);
    for (const request of parseRequestsFile(requestLines.join('\n'))) {
      const recording: Recording = {
        ...request,
        endpoint: 'x',
        status: 200,
        headers: { 'content-type': 'application/json', 'cache-control': 'private' },
        bodyText: request.scenario === 'body-plain' ? holdingToken : NO_TOKEN_BODY,
      };
      await writeFile(join(dir, `${request.path.split('/')[1]}__${request.scenario}.json`), recordingJson(recording));
    }
    const html = join(dir, 'report.html');
    const run = await runKitScript('diff', ['--recordings', dir, '--target', echo.url, '--html', html], {
      LEGACY_ACCESS_TOKEN: token,
      TARGET_ACCESS_TOKEN: otherToken,
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain('[token]');
    expect(run.stdout).toMatch(/\$\.link\[0\]\.url: "\/x\?page=2" → "https:\/\/legacy\.example\.org\/next\?page=2&access_token=/);
    expect(run.stdout).toMatch(/\$\.link\[0\]\.url: "https:\/\/old\.example\.org\/next\?page=2&access_token=\[token\]" → /);
    expectNoTokenIn(run.stdout, 'stdout');
    expectNoTokenIn(run.stderr, 'stderr');
    const page = await readFile(html, 'utf8');
    expect(page).toContain('[token]');
    expectNoTokenIn(page, 'the HTML report');
  });

  it('scrubs both tokens from both sides (live mode)', async () => {
    const dir = await tempDir('echo-live');
    dirs.push(dir);
    const requestsFile = join(dir, 'requests.txt');
    await writeFile(requestsFile, `${requestLines.join('\n')}\n`);
    const html = join(dir, 'report.html');
    // Each side echoes its own token, in links to another site: every difference holds a token on both sides.
    const right = await startEchoServer('new.example.org');
    try {
      const run = await runKitScript('diff', ['--left', echo.url, '--right', right.url, '--requests', requestsFile, '--html', html], {
        LEGACY_ACCESS_TOKEN: token,
        TARGET_ACCESS_TOKEN: otherToken,
      });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toMatch(/\$\.link\[0\]\.url: "https:\/\/legacy\.example\.org\/next\?page=2&access_token=[^"]*\[token\]/);
      expectNoTokenIn(`${run.stdout}${run.stderr}`, 'output');
      const page = await readFile(html, 'utf8');
      expect(page).toContain('[token]');
      expectNoTokenIn(page, 'the HTML report');
    } finally {
      await right.close();
    }
  });
});
