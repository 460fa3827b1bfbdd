import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Most tests start real processes (the proxy through tsx, the filesystem server, the
    // collector) on a machine shared with other builds: a generous bound, not a speed check.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
