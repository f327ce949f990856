/**
 * What the three kit commands (scripts/record.ts, diff.ts, emulate.ts) share: argument errors,
 * tokens from the environment only, and exit codes — 0 done (no differences), 1 differences
 * remain, 2 the command could not do its work (usage, files, network).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { scrubTokens as scrubEach } from './token-scan.ts';

export const EXIT_OK = 0;
export const EXIT_DIFFERENCES = 1;
export const EXIT_FAILED = 2;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The tokens the kit reads, by variable name. Never an argument or a file: those end up in shell history and in version control. */
export const TOKEN_VARIABLES = ['LEGACY_ACCESS_TOKEN', 'TARGET_ACCESS_TOKEN'] as const;

export function envToken(name: (typeof TOKEN_VARIABLES)[number]): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function parseCliArgs<T extends NonNullable<ParseArgsConfig['options']>>(options: T, args = process.argv.slice(2)) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function required<T>(value: T | undefined, option: string): T {
  if (value === undefined || value === '') throw new UsageError(`--${option} is required`);
  return value;
}

/**
 * A base URL argument: http or https, so a typo is a usage error rather than a failed request. No
 * query or fragment (the request's path and query are appended to it) and no `user:password@`
 * (a credential in an argument ends up in shell history, process lists and the reports).
 */
export function baseUrl(value: string | undefined, option: string): string {
  const text = required(value, option);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--${option} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--${option} must be an http or https URL`);
  if (url.username !== '' || url.password !== '' || /^[a-z][a-z0-9+.-]*:\/*[^/?#]*@/i.test(text)) {
    throw new UsageError(`--${option} must not hold a user name or password: tokens come from the environment`);
  }
  if (text.includes('?') || text.includes('#')) throw new UsageError(`--${option} must be a base URL, without a query or fragment`);
  return text;
}

/**
 * Runs a command and exits with its code. Every message is scrubbed of the tokens in the
 * environment, whatever produced it; a usage error prints the usage too.
 */
export function runCli(usage: string, main: () => Promise<number>): void {
  // Asked for: the usage on stdout and exit 0 (a usage error prints it on stderr, exit 2).
  if (process.argv.slice(2).some((arg) => arg === '--help' || arg === '-h')) {
    process.stdout.write(`${usage}\n`);
    process.exitCode = EXIT_OK;
    return;
  }
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      process.stderr.write(`${scrubTokens(message)}\n`);
      if (error instanceof UsageError) process.stderr.write(`\n${usage}\n`);
      process.exitCode = EXIT_FAILED;
    },
  );
}

/** The text with every token of the environment replaced by `[token]`. */
export function scrubTokens(text: string): string {
  return scrubEach(text, TOKEN_VARIABLES.map(envToken));
}
