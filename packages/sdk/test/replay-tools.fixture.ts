/**
 * A tools module as `guardtrace-replay --tools` loads it (src/cli/*.test.ts): `read_file` takes
 * `{ path }` inside `src/` only (the "new" guard: `docs/` was removed), `write_file` is not read-only.
 * The default export is the instance; the named ones are the other shapes the bin accepts.
 */
import { z } from 'zod';
import { Guardtrace, predicate } from '../src/index.ts';

export function makeGuardtrace(): Guardtrace {
  const gt = new Guardtrace({ tracing: false });
  gt.tool({
    name: 'read_file',
    description: 'Reads a file of the workspace',
    schema: z.object({ path: z.string() }),
    flags: { readOnly: true },
    guards: [
      predicate<{ path: string }>({
        name: 'insideWorkspace',
        test: (a) => typeof a.path === 'string' && a.path.startsWith('src/'),
        message: (a) => `path "${String(a.path)}" is outside the allowed folders: src`,
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
      throw new Error('write_file must never run in a replay');
    },
  });
  return gt;
}

const gt = makeGuardtrace();
export default gt;
export const later: Promise<Guardtrace> = Promise.resolve(makeGuardtrace());
export const notAnInstance = { tools: [] };
export function broken(): Guardtrace {
  throw new Error('DATABASE_URL is not set');
}
