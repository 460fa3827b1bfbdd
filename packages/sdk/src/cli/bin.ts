#!/usr/bin/env node
/** The `guardtrace-replay` command (package.json "bin"); src/cli/main.ts does the work. */
import { main } from './main.ts';

main({ argv: process.argv.slice(2), env: process.env, cwd: process.cwd(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then(
  (code) => exit(code),
  (err: unknown) => {
    console.error('guardtrace-replay: unexpected error:', err);
    exit(3);
  },
);

/** Exits with `code` once the event loop is empty, or after 200 ms if the user's tools module left a handle open (a pool, a timer). */
function exit(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 200).unref();
}
