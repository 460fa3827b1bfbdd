// The tools module `guardtrace-replay --tools` loads, from the installed tarballs only: read_file
// may now read src/ only (docs/ was removed from its folders); write_file must never run in a replay.
import { Guardtrace } from '@guardtrace/sdk';
import { insideWorkspace } from '@guardtrace/sdk/guards/files';
import { z } from 'zod';

const gt = new Guardtrace();
gt.tool({
  name: 'read_file',
  description: 'Reads a file of the workspace',
  schema: z.object({ path: z.string() }),
  flags: { readOnly: true },
  guards: [insideWorkspace({ root: process.cwd(), paths: (a) => a.path, folders: ['src'] })],
  execute: ({ path }) => `contents of ${path}`,
});
gt.tool({
  name: 'write_file',
  description: 'Writes a file',
  schema: z.object({ path: z.string(), text: z.string() }),
  execute: () => {
    throw new Error('write_file ran in a replay');
  },
});
export default gt;
