/**
 * Service mode inside workerd: jose verifies the caller's JWT against the authorization server's
 * JWKS and the service's own credential is fetched, on the Worker runtime as on Node.
 */
import { describe, expect, inject, it } from 'vitest';
import { createWorker } from '../../src/entry/worker.ts';
import { captureWorkerLog } from './worker-log.ts';

const ctx = { waitUntil: () => {}, passThroughOnException: () => {} };

describe('a Worker in service mode', () => {
  const log = captureWorkerLog();
  const worker = createWorker();
  const onWorker = (path: string, token?: string) =>
    worker.fetch(new Request(`http://facade.test${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }), inject('serviceModeEnv'), ctx);

  it("answers the token's patient only, and refuses another patient and bad tokens", async () => {
    const token = inject('patientOneToken');
    const own = await onWorker('/Condition', token);
    expect(own.status).toBe(200);
    const body = (await own.json()) as { entry: { resource: { subject?: { reference?: string } } }[] };
    expect(body.entry.length).toBeGreaterThan(0);
    expect(body.entry.every((entry) => entry.resource.subject?.reference === 'Patient/1')).toBe(true);
    expect((await onWorker('/Condition?patient=2', token)).status).toBe(403);
    expect((await onWorker('/Condition', `${token}x`)).status).toBe(401);
    expect((await onWorker('/Condition')).status).toBe(401);
    // The audit names the token's subject and patient, never the token.
    expect(log.audits().map(({ status, subject, patient, outcome }) => ({ status, subject, patient, outcome }))).toEqual([
      { status: 200, subject: 'worker-app', patient: '1', outcome: 'allowed' },
      { status: 403, subject: 'worker-app', patient: '1', outcome: 'denied' },
      { status: 401, subject: null, patient: null, outcome: 'denied' },
      { status: 401, subject: null, patient: null, outcome: 'denied' },
    ]);
    expect(JSON.stringify(log.lines)).not.toContain(token);
  });
});
