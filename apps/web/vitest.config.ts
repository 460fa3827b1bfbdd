import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      // The data layer is marked server-only; in tests we are the server.
      'server-only': fileURLToPath(new URL('./test/server-only-stub.ts', import.meta.url)),
      '@/': fileURLToPath(new URL('./src/', import.meta.url)),
    },
  },
  test: {
    environment: 'node',
    include: ['test/**/*.test.ts'],
    // Each file starts its own throwaway Postgres (~0.5 s) and migrates it.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
