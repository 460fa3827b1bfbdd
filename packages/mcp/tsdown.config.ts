import { defineConfig } from 'tsdown';

/**
 * Published build, like packages/sdk's: ESM (.js) and CommonJS (.cjs) with declarations. The
 * `guardtrace-mcp` command is dist/bin.js (its shebang kept; the .cjs twin is unused). Inside
 * the workspace `exports` and `bin` point at the TypeScript sources; `publishConfig` swaps in
 * `dist/` when the package is packed.
 */
export default defineConfig({
  entry: { index: 'src/index.ts', bin: 'src/bin.ts' },
  format: ['esm', 'cjs'],
  platform: 'node',
  fixedExtension: false,
  dts: true,
  clean: true,
  hash: false,
  // modules shared by the two entries go to dist/shared/, so dist/ lists the entries only
  outputOptions: (options) => {
    const names = options.chunkFileNames;
    if (typeof names === 'string') return { ...options, chunkFileNames: `shared/${names}` };
    if (typeof names === 'function') return { ...options, chunkFileNames: (chunk) => `shared/${names(chunk)}` };
    return options;
  },
});
