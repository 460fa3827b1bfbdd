import { createRequire } from 'node:module';

/**
 * Loads an optional peer dependency of a guard subpath when the subpath is imported, so the
 * main install never pulls it (node-sql-parser is ~89 MB installed) and a missing one is a
 * clear error at import time, not a failed guard at the first call.
 */
export function optionalPeer<T>(name: string, range: string, subpath: string): T {
  const load = createRequire(import.meta.url);
  try {
    return load(name) as T;
  } catch (err) {
    const { code, message } = err as { code?: unknown; message?: unknown };
    // only the peer itself missing: a module missing inside an installed peer is its own error
    const missing = (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && String(message).includes(`'${name}'`);
    if (!missing) throw err;
    throw new Error(
      `@guardtrace/sdk/${subpath} needs ${name}, an optional peer dependency that is not installed: run \`npm install ${name}@${range}\` (or pnpm add / yarn add).`,
      { cause: err },
    );
  }
}
