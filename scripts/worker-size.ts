/**
 * `npm run worker:size`: builds the Worker as `wrangler deploy --dry-run --outdir` would deploy it
 * and prints its gzipped size against the 150 KiB budget; exits 1 over budget.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { handleArgs } from './usage.ts';

export const BUDGET_BYTES = 150 * 1024;

/** Builds the Worker into `outdir` as `wrangler deploy` would upload it; returns its `.js` files. */
export function buildWorker(outdir: string): string[] {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const wrangler = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
  execFileSync(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', outdir], {
    cwd: root,
    stdio: 'pipe',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  });
  return readdirSync(outdir).filter((name) => name.endsWith('.js'));
}

/** The deployable Worker's size in bytes, raw and gzipped, and any `node:` module it still imports. */
export function measureWorkerBundle(): { rawBytes: number; gzipBytes: number; nodeImports: string[] } {
  const outdir = mkdtempSync(join(tmpdir(), 'worker-bundle-'));
  try {
    const code = buildWorker(outdir);
    const bytes = Buffer.concat(code.map((name) => readFileSync(join(outdir, name))));
    // wrangler leaves `node:` imports external rather than failing; at the edge they would fail to load.
    const nodeImports = [...new Set(bytes.toString('utf8').match(/\b(?:from|import|require)\s*\(?\s*["']node:[\w/]+["']/g) ?? [])];
    return { rawBytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length, nodeImports };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  handleArgs(
    'usage: npm run worker:size\n  Builds the Worker as wrangler would deploy it and prints its gzipped size against the 150 KiB budget (exit 1 over it).',
  );
  const { rawBytes, gzipBytes, nodeImports } = measureWorkerBundle();
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  console.log(`Worker bundle: ${kib(gzipBytes)} gzipped (${kib(rawBytes)} raw); budget ${kib(BUDGET_BYTES)} gzipped`);
  if (nodeImports.length > 0) console.log(`Node-only imports in the Worker: ${nodeImports.join(', ')}`);
  process.exit(gzipBytes <= BUDGET_BYTES && nodeImports.length === 0 ? 0 : 1);
}
