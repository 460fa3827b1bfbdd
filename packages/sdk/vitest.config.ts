import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One module graph for every test file: loading the OpenTelemetry SDK afresh for each file
    // took 16.5 s of a 48 s run; shared, the run takes 23-27 s. No test mocks modules or
    // relies on a fresh global provider: it passes in shuffled file orders too (seeds 7, 13, 99).
    isolate: false,
  },
});
