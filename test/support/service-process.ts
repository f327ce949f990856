/**
 * The service as an operator runs it: the compiled build (`node dist/node.js`, or `npm start`) in a
 * child process, its stdout (JSON log lines) and stderr collected, signals sent to it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Builds dist/ as `npm ci` does (through `prepare`): the tests run what operators run. */
export function buildOnce(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'pipe' });
}

export interface ServiceProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Parsed JSON log lines so far. */
  logLines: () => Record<string, unknown>[];
  /** Resolves with the first log line matching `message`, rejects after `timeoutMs`. */
  waitForLog(message: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Exit code (or signal name) and how long after this call it came. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** Starts `command args` in the repository with the environment given (on top of PATH and HOME only). */
export function startProcess(command: string, args: readonly string[], env: Record<string, string>): ServiceProcess {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() }));
  });
  const logLines = () => out.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    logLines,
    exited,
    async waitForLog(message, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = logLines().find((line) => line.message === message);
        if (found) return found;
        if (Date.now() > until || child.exitCode !== null) throw new Error(`no "${message}" log line; stderr: ${err.slice(0, 500)}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}

/** The compiled service, `node dist/node.js`, as the README's production command runs it. */
export function startCompiled(env: Record<string, string>, args: readonly string[] = []): ServiceProcess {
  return startProcess(process.execPath, ['--enable-source-maps', 'dist/node.js', ...args], env);
}
