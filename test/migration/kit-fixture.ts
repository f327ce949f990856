/**
 * What the migration kit's tests share: the real service on its embedded upstream, a requests file
 * covering several operations and envelope kinds (ids looked up through the service), temp
 * folders, and edits of recordings that inject differences.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isJsonObject, JsonNumber, parseJsonText, serializeJson, type JsonObject, type JsonValue } from '../../kit/json-text.ts';
import { parseRecording, recordingJson, requestLine, type Recording } from '../../kit/recordings.ts';
import type { EmbeddedTestService, LegacyBundle } from '../support/embedded-service.ts';

const execFileAsync = promisify(execFile);
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface KitRequests {
  patientId: string;
  /** The requests file's text. */
  text: string;
}

/** A token in RFC 6750 syntax, long and random so that finding it in a file means it leaked. */
export function testToken(): string {
  return `kit-${crypto.randomUUID()}`;
}

export async function kitRequests(service: EmbeddedTestService): Promise<KitRequests> {
  const [patient] = await service.fhirSearch('Patient');
  const patientId = patient!.id!;
  const reports = await service.getJson<LegacyBundle>(`/api/DiagnosticReport?patient=${patientId}`);
  const encounters = await service.getJson<LegacyBundle>(`/Encounter?patient=${patientId}`);
  const reportId = reports.entry[0]!.full_url.split('/')[2];
  const encounterId = encounters.entry[0]!.full_url.split('/')[2];
  const text = `# the migration kit's test requests
GET /api/DiagnosticReport?patient=${patientId}   # dr-search
GET /api/DiagnosticReport/${reportId}?patient=${patientId}   # dr-by-id
GET /Observation?patient=${patientId}&_revinclude=Provenance:target   # observation-provenance
GET /Observation?patient=${patientId}   # observation-no-token no-token
GET /Encounter?patient=${patientId}   # encounter-search
GET /Encounter/${encounterId}   # encounter-by-id
GET /api/Assessments?patient=${patientId}   # assessments
GET /Orders?patient=${patientId}   # orders
GET /api/Practitioner?patient=${patientId}   # practitioners

POST /api/AlleryIntolerance/_search patient=${patientId}   # allergy-post
GET /api/CareTeam?patient=${patientId}&status=active
GET /api/DiagnosticReport/999999   # dr-unknown
`;
  return { patientId, text };
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `migration-kit-${prefix}-`));
}

export async function removeDirs(dirs: string[]): Promise<void> {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}

export async function copyDir(from: string, prefix: string): Promise<string> {
  const to = await tempDir(prefix);
  await cp(from, to, { recursive: true });
  return to;
}

/** Every file of a folder with its text, by name. */
export async function filesOf(dir: string): Promise<Map<string, string>> {
  const names = (await readdir(dir)).sort();
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(dir, name), 'utf8')] as const)));
}

export async function readRecordingFile(dir: string, name: string): Promise<Recording> {
  const file = join(dir, name);
  return parseRecording(await readFile(file, 'utf8'), file);
}

/** Rewrites one recording of a folder through `edit`. */
export async function editRecording(dir: string, name: string, edit: (recording: Recording) => Recording): Promise<void> {
  await writeFile(join(dir, name), recordingJson(edit(await readRecordingFile(dir, name))), 'utf8');
}

/** The recording file of a scenario (file names are `<endpoint>__<scenario>.json`). */
export async function fileOfScenario(dir: string, scenario: string): Promise<string> {
  const name = (await readdir(dir)).find((file) => file.endsWith(`__${scenario}.json`));
  if (name === undefined) throw new Error(`no recording of scenario ${scenario} in ${dir}`);
  return name;
}

function objectAt(value: JsonValue | undefined, what: string): JsonObject {
  if (!isJsonObject(value)) throw new Error(`${what} is not an object`);
  return value;
}

function arrayAt(value: JsonValue | undefined, what: string): JsonValue[] {
  if (!Array.isArray(value)) throw new Error(`${what} is not an array`);
  return value;
}

/** Edits a recording's body through the number-preserving parser, in place, and writes it back. */
async function editBody(dir: string, scenario: string, edit: (body: JsonValue, recording: Recording) => void): Promise<Recording> {
  let edited: Recording | undefined;
  await editRecording(dir, await fileOfScenario(dir, scenario), (recording) => {
    const body = parseJsonText(recording.bodyText);
    edit(body, recording);
    edited = { ...recording, bodyText: serializeJson(body) };
    return edited;
  });
  return edited!;
}

/**
 * Injects into a folder recorded with `kitRequests` the differences of the issue: a changed value,
 * a missing field, a reordered entry (which must not count), a different status and `1.50` vs `1.5`.
 * Returns the paths the diff must report, by request line; the paths come from the edited data.
 */
export async function injectDifferences(dir: string): Promise<Map<string, string[]>> {
  const expected = new Map<string, string[]>();

  // A changed value: the status of the second DiagnosticReport of the search.
  const reports = await editBody(dir, 'dr-search', (body) => {
    const entry = objectAt(arrayAt(objectAt(body, 'body').get('entry'), 'entry')[1], 'entry');
    const resource = objectAt(entry.get('resource'), 'resource');
    resource.set('status', resource.get('status') === 'final' ? 'amended' : 'final');
    expected.set('dr-search', [`$.entry[full_url=${String(entry.get('full_url'))}].resource.status`]);
  });

  // A missing field: the recording lacks the first order's conclusionCode, which the target answers.
  const orders = await editBody(dir, 'orders', (body) => {
    objectAt(arrayAt(body, 'orders')[0], 'order').delete('conclusionCode');
    expected.set('orders', ['$[0].conclusionCode']);
  });

  // A reordered entry: the Encounter search with its entries reversed, which is no difference.
  await editBody(dir, 'encounter-search', (body) => {
    const entries = arrayAt(objectAt(body, 'body').get('entry'), 'entry');
    if (entries.length < 2) throw new Error('the Encounter search needs two entries to be reordered');
    entries.reverse();
  });

  // A different status, the body left as it was.
  const assessmentsFile = await fileOfScenario(dir, 'assessments');
  let assessments: Recording | undefined;
  await editRecording(dir, assessmentsFile, (recording) => (assessments = { ...recording, status: recording.status === 200 ? 500 : 200 }));
  expected.set('assessments', ['status']);

  // `1.50` vs `1.5`: a trailing zero added to the first quantity value of the Observation search.
  const observations = await editBody(dir, 'observation-provenance', (body) => {
    for (const entryValue of arrayAt(objectAt(body, 'body').get('entry'), 'entry')) {
      const entry = objectAt(entryValue, 'entry');
      const quantity = objectAt(entry.get('resource'), 'resource').get('valueQuantity');
      const value = isJsonObject(quantity) ? quantity.get('value') : undefined;
      if (!(value instanceof JsonNumber) || !isJsonObject(quantity)) continue;
      quantity.set('value', new JsonNumber(value.text.includes('.') ? `${value.text}0` : `${value.text}.0`));
      expected.set('observation-provenance', [`$.entry[full_url=${String(entry.get('full_url'))}].resource.valueQuantity.value`]);
      return;
    }
    throw new Error('no Observation with a valueQuantity');
  });

  // By request line, as the diff names requests.
  const byScenario = new Map([
    [reports, 'dr-search'],
    [orders, 'orders'],
    [assessments!, 'assessments'],
    [observations, 'observation-provenance'],
  ]);
  return new Map([...byScenario].map(([recording, scenario]) => [requestLine(recording), expected.get(scenario)!]));
}

/** Runs a kit command as a person would (`npx tsx scripts/<name>.ts …`) and returns its exit code and output. */
export async function runKitScript(
  script: 'record' | 'diff' | 'emulate',
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync('npx', ['tsx', `scripts/${script}.ts`, ...args], { cwd: PROJECT_ROOT, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
