import { defineConfig } from 'vitest/config';

// The test starts a real Postgres and a collector process: minutes, not the default seconds.
export default defineConfig({ test: { include: ['test/**/*.test.ts', 'src/**/*.test.ts'], testTimeout: 180_000, hookTimeout: 180_000 } });
