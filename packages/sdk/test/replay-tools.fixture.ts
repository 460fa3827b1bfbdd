/**
 * A tools module as `guardtrace-replay --tools` loads it (src/cli/*.test.ts): `read_file` takes
 * `{ path }` inside the given folders (the default export: `src` only, i.e. `docs` was removed
 * since v1), `write_file` is not read-only and must never run in a replay. The named exports are
 * the other shapes the bin accepts, and v1 for recording.
 */
import { z } from 'zod';
import { Guardtrace, predicate } from '../src/index.ts';

export function registerTools(gt: Guardtrace, folders: string[], production = false): Guardtrace {
  const inside = (p: unknown) => typeof p === 'string' && !p.includes('..') && folders.some((f) => p.startsWith(`${f}/`));
  gt.tool({
    name: 'read_file',
    description: 'Reads a file of the workspace',
    schema: z.object({ path: z.string() }),
    flags: { readOnly: true },
    guards: [
      predicate<{ path: string }>({
        name: 'insideWorkspace',
        test: (a) => inside(a.path),
        message: (a) => `path "${String(a.path)}" is outside the allowed folders: ${folders.join(', ')}`,
        pointers: ['/path'],
      }),
    ],
    execute: async ({ path }) => `contents of ${path}`,
  });
  gt.tool({
    name: 'write_file',
    description: 'Writes a file',
    schema: z.object({ path: z.string(), text: z.string() }),
    execute: async () => {
      if (!production) throw new Error('write_file must never run in a replay');
      return 'written';
    },
  });
  return gt;
}

export function makeGuardtrace(): Guardtrace {
  return registerTools(new Guardtrace({ tracing: false }), ['src']);
}

export default makeGuardtrace();
export const later: Promise<Guardtrace> = Promise.resolve(makeGuardtrace());
export const notAnInstance = { tools: [] };
export function broken(): Guardtrace {
  throw new Error('DATABASE_URL is not set');
}
