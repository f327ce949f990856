/**
 * What the access-log tests share: tokens shaped like the old system's (64 letters and digits),
 * access-log lines as Apache and nginx write them, and log files written to temp folders.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** 64 random letters and digits, as the old system's tokens: finding it in an output means it leaked. */
export function legacyToken(): string {
  let token = '';
  while (token.length < 64)
    token += randomBytes(64)
      .toString('base64')
      .replace(/[^A-Za-z0-9]/g, '');
  return token.slice(0, 64);
}

/** A common log format line: host, ident, user, time, request, status, size. */
export function commonLine(request: string, status = 200, host = '127.0.0.1'): string {
  return `${host} - - [10/Oct/2026:13:55:36 -0400] "${request}" ${status} 2326`;
}

/** A combined log format line: the common fields, then referer and user agent. */
export function combinedLine(request: string, status = 200): string {
  return `${commonLine(request, status, '10.1.2.3')} "https://portal.example.org/chart" "Mozilla/5.0 (X11; Linux x86_64)"`;
}

export async function writeLog(dir: string, name: string, lines: readonly string[]): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, `${lines.join('\n')}\n`, 'utf8');
  return file;
}
