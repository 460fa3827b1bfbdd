import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NextConfig } from 'next';

const config: NextConfig = {
  // Workspace packages are TypeScript source (no build step): Next compiles them.
  transpilePackages: ['@guardtrace/db', '@guardtrace/semconv'],
  // A self-contained server folder (.next/standalone) with only the node_modules it uses;
  // scripts/build-standalone.mjs completes it and `pnpm start` runs it.
  output: 'standalone',
  // The monorepo's root: workspace packages and the hoisted pnpm store are traced from there.
  outputFileTracingRoot: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'),
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
