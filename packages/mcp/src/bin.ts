#!/usr/bin/env node
import { main } from './cli.ts';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error('guardtrace-mcp:', err);
    process.exit(1);
  },
);
