import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Each test cruises a fixture workspace with dependency-cruiser (the first also loads it):
    // about a second each on idle cores, past vitest's default 5 s on a busy machine.
    testTimeout: 60_000,
  },
});
