/**
 * What the Worker logs, captured for the test to read instead of printed. Inside workerd the
 * Worker's logger and audit sink write JSON lines to console.log (src/log.ts, src/audit.ts): that is
 * the platform's log. Around each test of the calling block console.log is replaced by a collector,
 * so each test can assert on the lines it expects; console.warn and console.error are left alone,
 * and a console.log line that is not JSON fails the test rather than vanishing.
 */
import { afterEach, beforeEach, expect, vi } from 'vitest';

export type LogLine = Record<string, unknown>;

export interface WorkerLog {
  /** Every line logged during the current test, parsed. */
  readonly lines: LogLine[];
  /** The access log's request lines (one per request). */
  requests(): LogLine[];
  /** The audit lines (`"log":"audit"`). */
  audits(): LogLine[];
  /** The error lines (`level: "error"`). */
  errors(): LogLine[];
}

export function captureWorkerLog(): WorkerLog {
  const lines: LogLine[] = [];
  const notJson: string[] = [];
  beforeEach(() => {
    lines.length = 0;
    notJson.length = 0;
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      const text = args.map(String).join(' ');
      try {
        lines.push(JSON.parse(text) as LogLine);
      } catch {
        notJson.push(text);
      }
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    expect(notJson, 'console.log lines that are not the service log').toEqual([]);
  });
  return {
    lines,
    requests: () => lines.filter((line) => line.message === 'request'),
    audits: () => lines.filter((line) => line.log === 'audit'),
    errors: () => lines.filter((line) => line.level === 'error'),
  };
}
