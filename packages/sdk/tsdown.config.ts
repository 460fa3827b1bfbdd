import { defineConfig } from 'tsdown';

/**
 * Published build: ESM (.js) and CommonJS (.cjs), each with its declarations (.d.ts / .d.cts).
 * Inside the workspace `exports` point at the TypeScript sources, so nothing needs this build
 * to run or test; `publishConfig` swaps in `dist/` when the package is packed.
 */
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    setup: 'src/setup.ts',
    'ai-sdk': 'src/integrations/ai-sdk.ts',
    'openai-agents': 'src/integrations/openai-agents.ts',
    langchain: 'src/integrations/langchain.ts',
    'guards/files': 'src/guards/files.ts',
    'guards/command': 'src/guards/command.ts',
    'guards/sql': 'src/guards/sql.ts',
    replay: 'src/replay/index.ts',
    // the guardtrace-replay command: dist/bin.js keeps its shebang (the .cjs twin is unused)
    bin: 'src/cli/bin.ts',
  },
  format: ['esm', 'cjs'],
  // @noble/hashes 2 is ESM only: required from dist/*.cjs it fails wherever require() cannot load
  // an ES module (Jest before Node 24.9, tsx on Node 20). Its SHA-256 (a few kB) goes inside, so
  // it is a devDependency.
  deps: { alwaysBundle: [/^@noble\/hashes\//], onlyBundle: ['@noble/hashes'] },
  platform: 'node',
  // .js / .cjs and .d.ts / .d.cts: the package is "type": "module"
  fixedExtension: false,
  // @internal members (constructors that take the SDK's internals) stay out of the declarations
  dts: { compilerOptions: { stripInternal: true } },
  clean: true,
  // no hashes: stable file names make tarball diffs and the size benchmark readable
  hash: false,
  // modules shared by several entries go to dist/shared/, so dist/ lists the entries only
  outputOptions: (options) => {
    const names = options.chunkFileNames;
    if (typeof names === 'string') return { ...options, chunkFileNames: `shared/${names}` };
    if (typeof names === 'function') return { ...options, chunkFileNames: (chunk) => `shared/${names(chunk)}` };
    return options;
  },
});
