#!/usr/bin/env node
// Runs a command on a PATH that holds no pnpm, as on a machine with only Node:
//   node .ci/without-pnpm.mjs npm test
// Each folder of PATH that holds pnpm (or pnpx) is replaced by a folder of links to everything
// else in it, so node, npm, sh and the system's tools stay where they were.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function pathWithoutPnpm(scratch, PATH = process.env.PATH ?? '') {
  return PATH.split(path.delimiter)
    .filter(Boolean)
    .map((dir, i) => {
      const hidden = ['pnpm', 'pnpx'].filter((n) => fs.existsSync(path.join(dir, n)));
      if (!hidden.length) return dir;
      const mirror = path.join(scratch, `path-${i}`);
      fs.mkdirSync(mirror, { recursive: true });
      for (const name of fs.readdirSync(dir)) {
        if (hidden.includes(name)) continue;
        fs.symlinkSync(path.join(dir, name), path.join(mirror, name));
      }
      return mirror;
    })
    .join(path.delimiter);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [cmd, ...args] = process.argv.slice(2);
  if (!cmd) {
    console.error('usage: node .ci/without-pnpm.mjs <command> [args...]');
    process.exit(2);
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'guardtrace-nopnpm-'));
  const PATH = pathWithoutPnpm(scratch);
  if (spawnSync('sh', ['-c', 'command -v pnpm'], { env: { ...process.env, PATH } }).status === 0) {
    console.error('without-pnpm: pnpm is still on PATH');
    process.exit(1);
  }
  console.log(`[without-pnpm] ${[cmd, ...args].join(' ')} on a PATH that holds no pnpm`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, PATH } });
  fs.rmSync(scratch, { recursive: true, force: true });
  process.exit(r.status ?? 1);
}
