/**
 * Redaction at capture: recordings made with --redact hold no token and none of the personal
 * values the service answered, with the same pseudonym for the same value in every file, and they
 * still line up with the service's answers redacted by the same key.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RULES } from '../../kit/diff-rules.ts';
import { diffJson } from '../../kit/json-diff.ts';
import { isJsonObject, parseEmbeddedJson, parseJsonText, type JsonValue } from '../../kit/json-text.ts';
import { recordRequests } from '../../kit/record.ts';
import { createRedactor, RedactionKeyError } from '../../kit/redaction.ts';
import { summarize } from '../../kit/diff-patterns.ts';
import { diffRecordings, DiffSetupError } from '../../kit/replay-diff.ts';
import { parseRequestsFile } from '../../kit/requests-file.ts';
import { startEmbeddedTestService, type EmbeddedTestService, type LegacyBundle } from '../support/embedded-service.ts';
import { fileOfScenario, filesOf, kitRequests, readRecordingFile, removeDirs, runKitScript, tempDir, testToken } from './kit-fixture.ts';

const REDACTION_KEY = `test-key-${crypto.randomUUID()}`;
const token = testToken();
let service: EmbeddedTestService;
let plain: string;
let redacted: string;
let patientId: string;
const dirs: string[] = [];

beforeAll(async () => {
  service = await startEmbeddedTestService();
  const requests = await kitRequests(service);
  patientId = requests.patientId;
  const work = await tempDir('redaction');
  dirs.push(work);
  plain = join(work, 'plain');
  redacted = join(work, 'redacted');
  const requestsFile = join(work, 'requests.txt');
  await writeFile(requestsFile, requests.text);
  await recordRequests({ from: service.url, requests: parseRequestsFile(requests.text), outDir: plain, token });
  const run = await runKitScript('record', ['--from', service.url, '--requests', requestsFile, '--out', redacted, '--redact'], {
    LEGACY_ACCESS_TOKEN: token,
    REDACTION_KEY,
  });
  expect(run.stderr.includes(token)).toBe(false);
  expect(run.code, run.stderr).toBe(0);
  // Redacted: no warning about patient data kept as sent.
  expect(run.stderr).not.toContain('without --redact');
});
afterAll(async () => {
  await service?.close();
  await removeDirs(dirs);
});

/** Every string in a body, strings holding JSON (the Encounter record) looked into as well. */
function stringsOf(value: JsonValue, into: string[] = []): string[] {
  if (typeof value === 'string') {
    const embedded = parseEmbeddedJson(value);
    if (embedded !== undefined) stringsOf(embedded, into);
    else into.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) stringsOf(item, into);
  } else if (isJsonObject(value)) {
    for (const member of value.values()) stringsOf(member, into);
  }
  return into;
}

async function bodyStrings(dir: string): Promise<string[]> {
  const strings: string[] = [];
  for (const name of (await filesOf(dir)).keys()) stringsOf(parseJsonText((await readRecordingFile(dir, name)).bodyText), strings);
  return strings;
}

/** A value is present when a string is it, or (long enough not to occur by chance) holds it. */
const holds = (strings: string[], value: string) => strings.some((text) => text === value || (value.length >= 8 && text.includes(value)));

/** Personal values as the service answers them: the practitioners' and the patient's. */
async function personalValues(): Promise<string[]> {
  const practitioners = await service.getJson<LegacyBundle>(`/api/Practitioner?patient=${patientId}`);
  const values: string[] = [];
  for (const { resource } of practitioners.entry) {
    const name = (resource.name as { family: string; given: string[] }[])[0]!;
    const address = (resource.address as { line: string[]; city: string; postalCode: string }[])[0]!;
    values.push(name.family, ...name.given, address.line[0]!, address.city, address.postalCode);
    values.push(...(resource.telecom as { value: string }[]).map((telecom) => telecom.value));
    values.push(...(resource.identifier as { value: string }[]).map((identifier) => identifier.value));
  }
  const assessments = await service.getJson<{ subject: { display: string } }[]>(`/api/Assessments?patient=${patientId}&access_token=${token}`);
  values.push(assessments[0]!.subject.display);
  const encounters = await service.getJson<LegacyBundle>(`/Encounter?patient=${patientId}`);
  const record = JSON.parse((encounters.entry[0]!.resource.identifier as { value: string }[])[0]!.value) as Record<string, string>;
  values.push(record.patient_name!, record.performer!, record.history_and_physical_note!.slice(0, 60));
  return [...new Set(values)];
}

describe('recordings made with --redact', () => {
  it('hold none of the personal values that unredacted recordings hold', async () => {
    const values = await personalValues();
    expect(values.length).toBeGreaterThan(10);
    const plainStrings = await bodyStrings(plain);
    const redactedStrings = await bodyStrings(redacted);
    for (const value of values) {
      expect(holds(plainStrings, value), `${value} in the unredacted recordings`).toBe(true);
      expect(holds(redactedStrings, value), `${value} in the redacted recordings`).toBe(false);
    }
  });

  it('hold no token', async () => {
    for (const dir of [plain, redacted]) for (const [name, text] of await filesOf(dir)) expect(text.includes(token), name).toBe(false);
  });

  it('give the same value the same pseudonym in every file', async () => {
    const display = (await service.getJson<{ subject: { display: string } }[]>(`/api/Assessments?patient=${patientId}&access_token=${token}`))[0]!.subject
      .display;
    const expected = createRedactor(REDACTION_KEY).pseudonym('name', display);
    const assessments = JSON.parse((await readRecordingFile(redacted, await fileOfScenario(redacted, 'assessments'))).bodyText) as {
      subject: { display: string };
    }[];
    const observations = JSON.parse((await readRecordingFile(redacted, await fileOfScenario(redacted, 'observation-provenance'))).bodyText) as LegacyBundle;
    expect(expected).toMatch(/^name-[0-9a-f]{10}$/);
    expect(assessments[0]!.subject.display).toBe(expected);
    expect((observations.entry[0]!.resource.subject as { display: string }).display).toBe(expected);
    const encounter = JSON.parse((await readRecordingFile(redacted, await fileOfScenario(redacted, 'encounter-by-id'))).bodyText) as Record<
      string,
      { value: string }[]
    >;
    expect(JSON.parse(encounter.identifier![0]!.value)).toMatchObject({ patient_name: expected });
  });

  it('keep the structure, codes, systems, dates, references, ids and numbers', async () => {
    for (const name of (await filesOf(plain)).keys()) {
      const before = parseJsonText((await readRecordingFile(plain, name)).bodyText);
      const after = await readRecordingFile(redacted, name);
      expect(after.redaction).toEqual({ method: 'hmac-sha256', keyId: createRedactor(REDACTION_KEY).keyId });
      for (const difference of diffJson(before, parseJsonText(after.bodyText), DEFAULT_RULES)) {
        expect(difference.kind, `${name} ${difference.path}`).toBe('changed');
        expect(difference.path, name).not.toMatch(
          /\.(code|system|reference|id|full_url|effectiveDateTime|issued|status|admit_date|lastUpdated)$|valueQuantity/,
        );
        expect(difference.right, `${name} ${difference.path}`).toMatch(/^"(<div xmlns=\\"http:\/\/www\.w3\.org\/1999\/xhtml\\">)?[a-z]+-[0-9a-f]{10}/);
      }
    }
  });

  it('line up with the service’s answers redacted by the same key, and only by it', async () => {
    const report = await diffRecordings({ recordingsDir: redacted, target: service.url, token, rules: DEFAULT_RULES, redactor: createRedactor(REDACTION_KEY) });
    expect(summarize(report).differences).toBe(0);
    await expect(diffRecordings({ recordingsDir: redacted, target: service.url, token, rules: DEFAULT_RULES })).rejects.toThrow(DiffSetupError);
    await expect(
      diffRecordings({ recordingsDir: redacted, target: service.url, token, rules: DEFAULT_RULES, redactor: createRedactor(`${REDACTION_KEY}-other`) }),
    ).rejects.toThrow(/another key/);
    const cli = await runKitScript('diff', ['--recordings', redacted, '--target', service.url, '--redact'], { LEGACY_ACCESS_TOKEN: token, REDACTION_KEY });
    expect(cli.code, cli.stderr).toBe(0);
  });
});

describe('the record command', () => {
  it('refuses --redact without a key, and a requests file holding a token, before sending anything', async () => {
    const work = await tempDir('refusals');
    dirs.push(work);
    const requestsFile = join(work, 'requests.txt');
    await writeFile(requestsFile, `GET /api/DiagnosticReport?patient=${patientId}\n`);
    const noKey = await runKitScript('record', ['--from', service.url, '--requests', requestsFile, '--out', join(work, 'a'), '--redact'], {
      REDACTION_KEY: '',
    });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('REDACTION_KEY');
    expect(() => createRedactor('short')).toThrow(RedactionKeyError);

    await writeFile(requestsFile, `GET /api/DiagnosticReport?patient=${patientId}\nGET /Orders?patient=${patientId}&access_token=${token}\n`);
    const withToken = await runKitScript('record', ['--from', service.url, '--requests', requestsFile, '--out', join(work, 'b')], {});
    expect(withToken.code).toBe(2);
    expect(withToken.stderr).toContain('line 2: holds an access_token');
    expect(withToken.stderr).not.toContain(token);
    expect((await filesOf(work)).has('b')).toBe(false);
  });
});
