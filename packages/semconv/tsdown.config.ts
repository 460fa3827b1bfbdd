import { defineConfig } from 'tsdown';

/**
 * Published build: ESM (.js) and CommonJS (.cjs) with .d.ts / .d.cts. Inside the workspace
 * `exports` point at the TypeScript sources (no build needed); `publishConfig` swaps in
 * `dist/` when the package is packed.
 */
export default defineConfig({
  entry: { index: 'src/index.ts', mcp: 'src/mcp.ts', 'secret-rules': 'src/secret-rules/index.ts' },
  format: ['esm', 'cjs'],
  // no Node imports here: the web app's client components import these names too
  platform: 'neutral',
  fixedExtension: false,
  dts: true,
  clean: true,
  hash: false,
});
