/**
 * The tools of the guard regression e2e (tests/guard-regression.spec.ts), in two versions, as the
 * text of an ES module a project writes (`agent-tools.mjs`): `read_file` with a strict schema and a
 * files guard limited to some folders. v1 is what the recorded agent ran; v2 renames the optional
 * field `lines` to `maxLines` and takes `docs` out of the allowed folders. The recording agent and
 * the replay register the same definition, each with its own SDK (the workspace's, the packed one).
 */
import type { Guardtrace } from '@guardtrace/sdk';
import { insideWorkspace } from '@guardtrace/sdk/guards/files';
import { z } from 'zod';

export interface ToolsVersion {
  /** The field the schema names for a line limit. */
  linesField: 'lines' | 'maxLines';
  folders: string[];
}

export const TOOLS_V1: ToolsVersion = { linesField: 'lines', folders: ['src', 'docs'] };
export const TOOLS_V2: ToolsVersion = { linesField: 'maxLines', folders: ['src'] };

/** The tools of `v` on `gt` (made with `autoRepair: false`), as toolsModule(v) registers them. */
export function registerTools(gt: Guardtrace, v: ToolsVersion, root: string): void {
  gt.tool({
    name: 'read_file',
    description: 'Read a file of the workspace',
    schema: z.strictObject({ path: z.string(), [v.linesField]: z.number().int().positive().optional() }),
    flags: { readOnly: true },
    guards: [insideWorkspace({ root, paths: (a) => String(a.path), folders: v.folders })],
    execute: (a) => `contents of ${String(a.path)}`,
  });
}

/**
 * The module's text: its default export is a Guardtrace instance with the tools of `v` (auto-repair
 * off: a renamed field has no sound correction to make in code, and the test wants the model's view).
 */
export function toolsModule(v: ToolsVersion): string {
  return `import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { Guardtrace } from '@guardtrace/sdk';
import { insideWorkspace } from '@guardtrace/sdk/guards/files';

const root = fileURLToPath(new URL('./workspace/', import.meta.url));

const gt = new Guardtrace({ autoRepair: false });
gt.tool({
  name: 'read_file',
  description: 'Read a file of the workspace',
  schema: z.strictObject({ path: z.string(), ${v.linesField}: z.number().int().positive().optional() }),
  flags: { readOnly: true },
  guards: [insideWorkspace({ root, paths: (a) => a.path, folders: ${JSON.stringify(v.folders)} })],
  execute: (a) => \`contents of \${a.path}\`,
});

export default gt;
`;
}
