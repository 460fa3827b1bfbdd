/**
 * `pnpm --filter @guardtrace/sdk run check:package` (or semconv): build, pack into a temp
 * folder, run publint and attw on the tarball; exits non-zero on any problem.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { attw, buildAndPack, publint } from './pack.ts';

const dir = path.resolve(process.argv[2] ?? process.cwd());
const dest = mkdtempSync(path.join(tmpdir(), 'gt-pack-'));
try {
  const tgz = buildAndPack(dir, dest);
  console.log(`packed ${path.basename(tgz)}`);
  let failed = false;
  for (const [name, r] of [['publint', publint(tgz)], ['attw', attw(tgz)]] as const) {
    console.log(`--- ${name} (exit ${r.status})\n${r.output.trim()}`);
    if (r.status !== 0) failed = true;
  }
  process.exitCode = failed ? 1 : 0;
} finally {
  rmSync(dest, { recursive: true, force: true });
}
