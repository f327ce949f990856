// `npm run build` (and `npm ci`, through `prepare`): the Node service compiled to dist/ for `npm start`.
// Plain JavaScript, so the build needs nothing but esbuild. Why esbuild rather than tsc: one bundle
// in about a second, the `.ts` import specifiers resolved as they are, and the embedded FHIR
// upstream kept in lazily loaded chunks (code splitting), so a service with a real upstream never
// loads Medplum. Packages stay in node_modules (`packages: external`); types are checked by
// `npm run typecheck`, not here. The Worker is built by wrangler from the same sources.
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';

const outdir = new URL('../dist/', import.meta.url).pathname;
await rm(outdir, { recursive: true, force: true });
await build({
  entryPoints: [new URL('../src/entry/node.ts', import.meta.url).pathname],
  outdir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: true,
  logLevel: 'warning',
});
