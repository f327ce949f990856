/**
 * Structured logging: one JSON object a line. Callers pass only fields that are safe to log —
 * route names, statuses, durations, error codes — never tokens, URLs with queries or patient data.
 */

export type LogFields = Record<string, string | number | boolean | undefined>;
export type Logger = (level: 'info' | 'warn' | 'error', message: string, fields?: LogFields) => void;

/** A logger writing JSON lines through `write` (console.log by default). */
export function jsonLogger(write: (line: string) => void = (line) => console.log(line)): Logger {
  return (level, message, fields = {}) => {
    write(JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }));
  };
}

/** A logger that drops everything (tests that do not look at logs). */
export const silentLogger: Logger = () => {};
