import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Each file starts its own Postgres (~0.6 s) and some tests drive real exporters with retries.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One module graph for every test file (no test mocks a module): 123-129 s a run against
    // 170 s isolated, the same in shuffled file orders (--sequence.shuffle.files).
    isolate: false,
    // On CI (two busy cores, every suite at once), a test that fails is run once more, as
    // Playwright's are; one that passes then is still named at the end of `npm test` (flaky).
    retry: process.env.CI ? 1 : 0,
  },
});
