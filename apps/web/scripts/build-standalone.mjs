/**
 * After `next build` (output: 'standalone'): completes .next/standalone into a folder that runs
 * on its own with `node apps/web/serve.mjs`. Next leaves the static assets and public/ out of
 * the standalone folder (a CDN may serve them); they are copied in here, and the launcher
 * (scripts/serve.ts) is compiled to JavaScript beside Next's server.js.
 */
import { cpSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// outputFileTracingRoot is the repository root, so the app sits at apps/web inside the folder.
const standaloneApp = path.join(appDir, '.next/standalone/apps/web');
if (!existsSync(path.join(standaloneApp, 'server.js'))) {
  throw new Error(`${standaloneApp}/server.js is missing: run \`next build\` with output: 'standalone' first`);
}
cpSync(path.join(appDir, '.next/static'), path.join(standaloneApp, '.next/static'), { recursive: true });
if (existsSync(path.join(appDir, 'public'))) {
  cpSync(path.join(appDir, 'public'), path.join(standaloneApp, 'public'), { recursive: true });
}
await build({
  entryPoints: [path.join(appDir, 'scripts/serve.ts')],
  outfile: path.join(standaloneApp, 'serve.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  // engines.node of the repository: >=20.19.
  target: 'node20.19',
  logLevel: 'warning',
});
