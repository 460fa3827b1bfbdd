/**
 * `pnpm build`: the collector as JavaScript run by plain Node (no tsx): dist/main.js, the
 * server, and dist/migrate.js, the guardtrace-migrate command.
 * `node scripts/build.mjs OUTDIR` writes it elsewhere (tests; OUTDIR must be inside this app,
 * so that its node_modules are found).
 *
 * The workspace packages (@guardtrace/db, @guardtrace/semconv) are TypeScript source: they are
 * bundled in, which is why they are devDependencies. The npm packages in `dependencies` stay
 * external and load from node_modules, as installed by `pnpm install --prod`. The migrations
 * are copied beside the bundle, where @guardtrace/db's migrator looks first.
 */
import { chmodSync, cpSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(path.join(appDir, 'package.json'), 'utf8'));
const external = new Set([
  ...builtinModules,
  ...Object.keys(pkg.dependencies).filter((name) => !name.startsWith('@guardtrace/')),
]);
/** `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`. */
const packageOf = (spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');

const dist = path.resolve(process.argv[2] ?? path.join(appDir, 'dist'));
rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: [path.join(appDir, 'src/main.ts'), path.join(appDir, 'src/migrate.ts')],
  outdir: dist,
  bundle: true,
  platform: 'node',
  format: 'esm',
  // engines.node of the repository: >=20.19.
  target: 'node20.19',
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [
    {
      name: 'npm-dependencies-external',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) => {
          if (args.path.startsWith('node:') || external.has(packageOf(args.path))) return { path: args.path, external: true };
          return undefined;
        });
      },
    },
  ],
});
cpSync(path.join(appDir, '../../prisma/migrations'), path.join(dist, 'migrations'), { recursive: true });
chmodSync(path.join(dist, 'migrate.js'), 0o755);
