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
  },
});
