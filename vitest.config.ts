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
        // The Worker of wrangler.toml, bound to the upstream that global-setup starts on Node.
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: { bindings: { UPSTREAM_URL: inject('upstreamUrl'), CACHE_TTL_MS: '400', CACHE_STALE_MS: '0' } },
          })),
        ],
        test: {
          name: 'workers',
          include: ['test/worker/**/*.test.ts'],
          globalSetup: ['test/worker/global-setup.ts'],
        },
      },
    ],
  },
});
