/**
 * Starts the whole Node service over real HTTP for a test: the facade against a given upstream
 * URL, with a log that the test can read.
 */
import { parseConfig } from '../../src/config.ts';
import { jsonAuditSink } from '../../src/audit.ts';
import { jsonLogger } from '../../src/log.ts';
import { startService, type RunningService } from '../../src/entry/node/node-service.ts';

export interface TestService extends RunningService {
  /** Every log line the service wrote. */
  logLines: string[];
  /** Every audit line the service wrote (its own sink, apart from the log). */
  auditLines: string[];
  get(path: string, init?: RequestInit): Promise<Response>;
}

/** The service on a free loopback port; with no `UPSTREAM_URL`, on its embedded upstream. */
export async function startTestService(env: Record<string, string> = {}, options: { dataDir?: string } = {}): Promise<TestService> {
  const logLines: string[] = [];
  const auditLines: string[] = [];
  const config = parseConfig({ PORT: '0', HOST: '127.0.0.1', EMBEDDED_FHIR_PORT: '0', ...env });
  const service = await startService(config, {
    ...options,
    logger: jsonLogger((line) => logLines.push(line)),
    audit: jsonAuditSink((line) => auditLines.push(line)),
  });
  return Object.assign(service, {
    logLines,
    auditLines,
    get: (path: string, init?: RequestInit) => fetch(`${service.url}${path}`, init),
  });
}
