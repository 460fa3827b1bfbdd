import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One file at a time: every test builds and packs the same two packages.
    fileParallelism: false,
    // npm installs from the registry and a real collector: minutes, not seconds.
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
});
