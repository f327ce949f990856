import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 60_000,
    projects: [
      {
        // extends: the timeouts above apply to each project too (projects do not inherit otherwise).
        extends: true,
        test: {
          name: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/worker/**'],
        },
      },
      {
        // The same facade inside workerd, against the embedded upstream started on Node.
        extends: true,
        plugins: [cloudflareTest({ wrangler: { configPath: './wrangler.toml' } })],
        test: {
          name: 'workers',
          include: ['test/worker/**/*.test.ts'],
          globalSetup: ['test/worker/global-setup.ts'],
        },
      },
    ],
  },
});
