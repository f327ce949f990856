/**
 * A synthetic site for `npm run bench:diff`: recordings of the old system shaped like the legacy
 * interface's answers (Observation searches, DiagnosticReports by id, Orders, Encounters with their
 * serialized record), a second recording of the same requests (new Bundle ids: noise), and the
 * answers of a "new system" that differs the way a real migration does: every Observation's
 * `issued` in UTC (one format pattern in thousands of answers), now and then a changed status, a
 * missing member, an admit date written otherwise inside the Encounter record.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { endpointName, recordingFileName, recordingJson, type Recording } from '../../kit/recordings.ts';

/** A small deterministic generator: the same site on every run. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return { next, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)) };
}

const pad = (n: number) => String(n).padStart(2, '0');
const bundleId = () => randomBytes(16).toString('hex');

interface Answer {
  path: string;
  query: [string, string][];
  old: unknown;
  /** The new system's answer to the same request. */
  next: unknown;
}

function observationSearch(index: number, random: ReturnType<typeof generator>): Answer {
  const patient = String(1 + (index % 997));
  const entries = Array.from({ length: random.int(10, 40) }, (_, n) => {
    const id = String(index * 50 + n);
    const day = `2024-${pad(random.int(1, 12))}-${pad(random.int(1, 28))}`;
    const time = `${pad(random.int(8, 17))}:${pad(random.int(0, 59))}:${pad(random.int(0, 59))}.${String(random.int(0, 999)).padStart(3, '0')}`;
    const issued = `${day}T${time}-05:00`;
    const resource = {
      resourceType: 'Observation',
      id,
      status: 'final',
      issued,
      category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'vital-signs', display: 'Vital Signs' }] }],
      code: { coding: [{ system: 'http://loinc.org', code: '8302-2', display: 'Body height' }], text: 'Body height' },
      subject: { reference: `Patient/${patient}`, display: `name-${patient}` },
      effectiveDateTime: `${day}T09:05:00-05:00`,
      valueQuantity: { value: 150 + random.int(0, 500) / 10, unit: 'cm', system: 'http://unitsofmeasure.org', code: 'cm' },
    };
    const utc = new Date(issued).toISOString().replace('Z', '+00:00');
    return { old: { full_url: `/Observation/${id}`, resource }, next: { full_url: `/Observation/${id}`, resource: { ...resource, issued: utc } } };
  });
  const bundle = (items: unknown[]) => ({ resourceType: 'Bundle', id: bundleId(), type: 'search set', entry: items, total: items.length });
  return {
    path: '/Observation',
    query: [
      ['patient', patient],
      ['start_date', `2024-01-${pad(1 + (index % 28))}`],
    ],
    old: bundle(entries.map((e) => e.old)),
    next: bundle(entries.map((e) => e.next)),
  };
}

function diagnosticReport(index: number, random: ReturnType<typeof generator>): Answer {
  const report = {
    resourceType: 'DiagnosticReport',
    id: String(index),
    status: 'final',
    code: { coding: [{ system: 'http://loinc.org', code: '58410-2', display: 'CBC panel - Blood by Automated count' }] },
    subject: { reference: `Patient/${1 + (index % 997)}` },
    effectiveDateTime: '2020-01-13',
    issued: '2020-01-13',
    conclusion: `text-${randomBytes(5).toString('hex')}`,
    result: Array.from({ length: random.int(3, 9) }, (_, n) => ({ reference: `Observation/${index * 10 + n}`, display: 'Hemoglobin [Mass/volume] in Blood' })),
  };
  // One report in fifty has another status on the new system: a real difference.
  const next = index % 50 === 0 ? { ...report, status: 'amended' } : report;
  return { path: `/api/DiagnosticReport/${index}`, query: [['patient', String(1 + (index % 997))]], old: report, next };
}

function orders(index: number, random: ReturnType<typeof generator>): Answer {
  const list = Array.from({ length: random.int(1, 6) }, (_, n) => ({
    resourceType: 'Order',
    code: '58410-2',
    effectiveDateTime: '20200113',
    basedOn: `ServiceRequest/${index * 10 + n}`,
    conclusionCode: '17621005',
    result: [{ reference: `Observation/${index * 10 + n}`, display: 'Leukocytes [#/volume] in Blood by Automated count' }],
  }));
  // One answer in a hundred lacks the first order's conclusionCode on the new system.
  const next = index % 100 === 15 ? list.map((order, n) => (n === 0 ? { ...order, conclusionCode: undefined } : order)) : list;
  return {
    path: '/Orders',
    query: [
      ['patient', String(1 + (index % 997))],
      ['page', String(index)],
    ],
    old: list,
    next,
  };
}

function encounter(index: number): Answer {
  const record = (admit: string) =>
    JSON.stringify({ patient_name: `name-${index}`, code: '185349003', admit_date: admit, discharge_date: '2020-01-13T12:00:00-05:00', status: 'finished' });
  const resource = (admit: string) => ({
    resourceType: 'Encounter',
    id: String(index),
    status: 'finished',
    identifier: [{ system: null, value: record(admit) }],
  });
  return { path: `/Encounter/${index}`, query: [], old: resource('2020-01-13T11:00:00-05:00'), next: resource('2020-01-13T16:00:00Z') };
}

function answer(index: number, random: ReturnType<typeof generator>): Answer {
  const slot = index % 20;
  if (slot < 10) return observationSearch(index, random);
  if (slot < 15) return diagnosticReport(index, random);
  if (slot < 18) return orders(index, random);
  return encounter(index);
}

function recording(item: Answer, index: number, body: unknown): Recording {
  return {
    scenario: `r${index}`,
    endpoint: endpointName(item.path),
    method: 'GET',
    path: item.path,
    query: item.query,
    withToken: true,
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'private, no-cache' },
    bodyText: JSON.stringify(body),
  };
}

/** Writes the three folders; returns the bytes of the old system's bodies. */
export async function writeSite(root: string, count: number): Promise<{ old: string; second: string; next: string; bodyBytes: number }> {
  const dirs = { old: join(root, 'old'), second: join(root, 'second'), next: join(root, 'next') };
  await Promise.all(Object.values(dirs).map((dir) => mkdir(dir, { recursive: true })));
  const random = generator(12);
  let bodyBytes = 0;
  for (let from = 0; from < count; from += 500) {
    const batch = Array.from({ length: Math.min(500, count - from) }, (_, offset) => from + offset);
    await Promise.all(
      batch.map(async (index) => {
        const item = answer(index, random);
        const old = recording(item, index, item.old);
        // The second recording: the same answer, but a Bundle gets a new id, as it does on every answer.
        const again = recording(item, index, withNewBundleId(item.old));
        const next = recording(item, index, withNewBundleId(item.next));
        bodyBytes += old.bodyText.length;
        const name = recordingFileName(old);
        await Promise.all([
          writeFile(join(dirs.old, name), recordingJson(old)),
          writeFile(join(dirs.second, name), recordingJson(again)),
          writeFile(join(dirs.next, name), recordingJson(next)),
        ]);
      }),
    );
  }
  return { ...dirs, bodyBytes };
}

function withNewBundleId(body: unknown): unknown {
  return body !== null && typeof body === 'object' && (body as { resourceType?: string }).resourceType === 'Bundle' ? { ...body, id: bundleId() } : body;
}
