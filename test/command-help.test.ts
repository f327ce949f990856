/**
 * Every command of package.json answers `--help` with its usage on stdout and exit 0, before doing
 * any work (the bench starts no server, worker:size builds nothing).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/service-process.ts';

const run = promisify(execFile);
const scripts = (JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
/** Commands a person runs with arguments; the rest (test, typecheck, build, prepare, dev…) take none or are npm's. */
const COMMANDS = ['record', 'diff', 'emulate', 'check-upstream', 'bench', 'bench:round-trips', 'bench:diff', 'worker:size'];

describe('--help', () => {
  it.each(COMMANDS)('npm run %s -- --help prints the usage and exits 0', async (name) => {
    const script = scripts[name]!.replace(/^tsx /, '');
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', script, '--help'], { cwd: ROOT, timeout: 30_000 });
    expect(stdout).toMatch(new RegExp(`^usage: npm run ${name}`));
    expect(stderr).toBe('');
  });
});
