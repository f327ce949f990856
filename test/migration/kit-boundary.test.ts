/**
 * The migration kit judges the service from outside: nothing in it may come from the service it
 * diffs (a shared helper would hide a difference both sides share). Its modules and commands import
 * only each other, Node's modules and valibot.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const KIT_DIR = new URL('../../kit/', import.meta.url);
const COMMANDS = ['record', 'diff', 'emulate', 'bench-diff'].map((name) => new URL(`../../scripts/${name}.ts`, import.meta.url));

/** Every module specifier a TypeScript source imports or re-exports, static or dynamic. */
function specifiersOf(source: string): string[] {
  return [...source.matchAll(/(?:import|export)\s[^;]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map((match) => match[1] ?? match[2]!);
}

describe('the migration kit', () => {
  const files = [
    ...readdirSync(KIT_DIR)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => new URL(name, KIT_DIR)),
    ...COMMANDS,
  ];

  it('imports nothing from the service core', () => {
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const isCommand = file.pathname.includes('/scripts/');
      for (const specifier of specifiersOf(readFileSync(file, 'utf8'))) {
        const allowed =
          specifier.startsWith('node:') ||
          specifier === 'valibot' ||
          specifier === 'tsx' ||
          (isCommand ? /^(\.\.\/kit\/|\.\/bench\/|\.\/usage\.ts$)/.test(specifier) : /^\.\/[^/]+$/.test(specifier));
        expect(allowed, `${file.pathname}: ${specifier}`).toBe(true);
      }
    }
  });
});
