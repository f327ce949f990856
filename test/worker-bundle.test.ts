/**
 * The Worker builds with wrangler, imports no `node:` module (the shared core must stay
 * runtime-neutral), and stays within its size budget.
 */
import { expect, it } from 'vitest';
import { BUDGET_BYTES, measureWorkerBundle } from '../scripts/worker-size.ts';

it('builds the Worker within 150 KiB gzipped, with no Node-only import', () => {
  const { gzipBytes, nodeImports } = measureWorkerBundle();
  expect(nodeImports).toEqual([]);
  expect(gzipBytes).toBeGreaterThan(10 * 1024);
  expect(gzipBytes).toBeLessThanOrEqual(BUDGET_BYTES);
});
