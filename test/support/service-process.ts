/**
 * The service as an operator runs it: the compiled build (`node dist/node.js`, or `npm start`) in a
 * child process, its stdout (JSON log lines) and stderr collected, signals sent to it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { sendJson, startCannedUpstream, type CannedUpstream } from './canned-upstream.ts';

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
  const logLines = () =>
    out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
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

/** What a file of process tests shares: a canned upstream, and what is stopped after the file. */
export interface ProcessTestBed {
  /** Answers every search with an empty Bundle, after `searchDelayMs`. */
  upstream: CannedUpstream;
  /** How long the upstream takes to answer a search, set per test (a request in progress at a signal). */
  searchDelayMs: number;
  /** Processes started: killed after the file. */
  running: ServiceProcess[];
  /** Ports the tests hold (so a service finds them in use): closed after the file. */
  held: Server[];
}

/** Builds dist/ and starts the upstream before the file's tests; stops everything after them. */
export function processTestBed(): ProcessTestBed {
  const bed: ProcessTestBed = { upstream: undefined as unknown as CannedUpstream, searchDelayMs: 0, running: [], held: [] };
  beforeAll(async () => {
    buildOnce();
    bed.upstream = await startCannedUpstream(async (_request, response) => {
      await new Promise((resolve) => setTimeout(resolve, bed.searchDelayMs));
      sendJson(response, 200, { resourceType: 'Bundle', type: 'searchset', entry: [] });
    });
  }, 60_000);
  afterAll(async () => {
    for (const service of bed.running) service.child.kill('SIGKILL');
    for (const server of bed.held) server.close();
    await bed.upstream?.close();
  });
  return bed;
}
