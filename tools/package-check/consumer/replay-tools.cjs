// The same tools module in CommonJS, its export a function returning the instance.
const { Guardtrace } = require('@guardtrace/sdk');
const { insideWorkspace } = require('@guardtrace/sdk/guards/files');
const { z } = require('zod');

module.exports = () => {
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
  return gt;
};
