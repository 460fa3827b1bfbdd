import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Each file starts its own Postgres (~0.6 s) and some tests drive real exporters with retries.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
