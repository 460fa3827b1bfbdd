import type { NextConfig } from 'next';

const config: NextConfig = {
  // Workspace packages are TypeScript source (no build step): Next compiles them.
  transpilePackages: ['@guardtrace/db', '@guardtrace/semconv'],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
