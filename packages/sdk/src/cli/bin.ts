#!/usr/bin/env node
/** The `guardtrace-replay` command (package.json "bin"); src/cli/main.ts does the work. */
import { main } from './main.ts';

main({ argv: process.argv.slice(2), env: process.env, cwd: process.cwd(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error('guardtrace-replay: unexpected error:', err);
    process.exitCode = 3;
  },
);
