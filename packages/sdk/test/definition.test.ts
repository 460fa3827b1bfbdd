/**
 * The tool definition fingerprint: stable across processes and key order, functions by name,
 * every option of the built-in guards in it; readable diffs; on the spans a session emits.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ATTR_GUARDTRACE_TOOL_DEFINITION, ATTR_GUARDTRACE_TOOL_DEFINITION_HASH, type ToolDefinitionSummary } from '@guardtrace/semconv';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { diffDefinitions, predicate, resourceLock, runOpenAIToolCalls, type ToolSpec, toolDefinition } from '../src/index.ts';
import { fileExists, insideWorkspace, lineRange } from '../src/guards/files.ts';
import { sqlHeuristics } from '../src/guards/sql.ts';
import { CommandGate } from '../src/guards/command.ts';
import { traced } from './helpers.ts';

const PKG = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

type Args = { path: string; limit?: number };
function readSpec(o: { folders?: string[]; schema?: z.ZodType; readOnly?: boolean; retries?: number } = {}): ToolSpec {
  return {
    name: 'read_file',
    description: 'Reads a file',
    schema: o.schema ?? z.object({ path: z.string(), limit: z.number().int().optional() }),
    flags: { readOnly: o.readOnly ?? true },
    guards: [insideWorkspace<Args>({ root: '/srv/ws', paths: (a) => a.path, folders: o.folders ?? ['src', 'docs'] })],
    policy: o.retries === undefined ? undefined : { invalid_arguments: { retries: o.retries } },
    execute: () => 'x',
  };
}

describe('toolDefinition', () => {
  it('is a 16-hex hash of a readable summary: JSON Schema, guards with options, set flags, policy changes', () => {
    const { hash, summary } = toolDefinition(readSpec({ retries: 3 }));
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(summary.tool).toBe('read_file');
    expect(summary.schema).toMatchObject({ type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } }, required: ['path'] });
    expect(summary.guards).toEqual([{ name: 'path_inside_workspace', stage: 'logical', options: { paths: 'fn:paths', folders: ['src', 'docs'] } }]);
    expect(summary.flags).toEqual({ readOnly: true });
    expect(summary.policy).toEqual({ classes: { invalid_arguments: { retries: 3 } } });
    // JSON-safe: the summary survives a JSON round trip unchanged
    expect(JSON.parse(JSON.stringify(summary))).toEqual(summary);
  });

  it('does not depend on key order, field order or the workspace root; does on every option that decides a verdict', () => {
    const a = toolDefinition(readSpec({ schema: z.object({ path: z.string(), limit: z.number().int().optional() }) }));
    const b = toolDefinition(readSpec({ schema: z.object({ limit: z.number().int().optional(), path: z.string() }) }));
    expect(b.hash).toBe(a.hash);
    const other = { ...readSpec(), guards: [insideWorkspace<Args>({ root: '/home/ci/checkout', paths: (a) => a.path, folders: ['src', 'docs'] })] };
    expect(toolDefinition(other).hash).toBe(a.hash);
    expect(toolDefinition(readSpec({ folders: ['src'] })).hash).not.toBe(a.hash);
    expect(toolDefinition(readSpec({ readOnly: false })).hash).not.toBe(a.hash);
    expect(toolDefinition(readSpec({ retries: 4 })).hash).not.toBe(a.hash);
  });

  it('is the same in another process (no object identity, no source text in it)', () => {
    const here = toolDefinition(readSpec()).hash;
    const code = `
      import { z } from 'zod';
      import { toolDefinition } from './src/index.ts';
      import { insideWorkspace } from './src/guards/files.ts';
      const spec = { execute: () => 'other body', guards: [insideWorkspace({ folders: ['src', 'docs'], paths: (x) => x.path, root: '/elsewhere' })],
        flags: { readOnly: true }, schema: z.object({ limit: z.number().int().optional(), path: z.string() }), description: 'Reads a file', name: 'read_file' };
      process.stdout.write(toolDefinition(spec).hash);`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: PKG, encoding: 'utf8' });
    expect(out).toBe(here);
  });

  it('describes every built-in guard by its options, functions by name', () => {
    const gate = new CommandGate({ command: 'node_modules/.bin/tsc', args: ['--noEmit'], cwd: '/srv/ws', name: 'tsc' });
    const spec: ToolSpec = {
      name: 'all', description: 'd', schema: z.object({ path: z.string(), sql: z.string() }), execute: () => 1,
      guards: [
        fileExists({ root: '/r', paths: (a) => a.path, maxCandidates: 3 }),
        lineRange({ root: '/r', path: (a) => a.path, start: () => 1, end: () => 2 }),
        sqlHeuristics({ sql: function sqlOf(a) { return a.sql; }, largeTables: ['events', 'audit'] }),
        resourceLock({ resource: (a) => a.path }),
        predicate({ name: 'small', test: () => true, message: 'too big', pointers: ['/sql'] }),
        gate.guard((a) => a.path),
      ],
    };
    expect(toolDefinition(spec).summary.guards).toEqual([
      { name: 'file_exists', stage: 'logical', options: { paths: 'fn:paths', maxCandidates: 3 } },
      { name: 'line_range', stage: 'logical', options: { path: 'fn:path', start: 'fn:start', end: 'fn:end', failureClass: 'invalid_arguments' } },
      { name: 'sql_heuristics', stage: 'logical', options: { sql: 'fn:sqlOf', database: 'postgresql', largeTables: ['audit', 'events'] } },
      { name: 'resource_lock', stage: 'logical', options: { resource: 'fn:resource' } },
      { name: 'small', stage: 'logical', options: { test: 'fn:test', message: 'too big', failureClass: 'guard_violation', pointers: ['/sql'] } },
      { name: 'tsc', stage: 'post_execution', options: { command: 'node_modules/.bin/tsc', args: ['--noEmit'], timeoutMs: 60000, files: 'fn:anonymous' } },
    ]);
  });
});

describe('diffDefinitions', () => {
  const v1 = toolDefinition(readSpec()).summary;

  it('names a renamed field, a removed folder, a flag and a policy change', () => {
    const v2 = toolDefinition(readSpec({ schema: z.object({ file: z.string(), limit: z.number().int().optional() }), folders: ['src'], readOnly: false, retries: 2 })).summary;
    expect(diffDefinitions(v1, v2)).toEqual([
      'schema: field "path" renamed? removed "path", added "file"',
      'guard path_inside_workspace: option folders changed ["src","docs"] → ["src"]',
      'flag readOnly removed',
      'policy classes.invalid_arguments.retries added 2',
    ]);
    expect(diffDefinitions(v1, v1)).toEqual([]);
  });

  it('names type, required and constraint changes, and guards added and removed', () => {
    const v2: ToolDefinitionSummary = {
      ...toolDefinition(readSpec({ schema: z.object({ path: z.string().max(200).optional(), limit: z.string(), mode: z.enum(['r', 'w']) }) })).summary,
      guards: [{ name: 'sql_heuristics', stage: 'logical' }],
    };
    expect(diffDefinitions(v1, v2)).toEqual([
      'schema: field "mode" added (enum ["r","w"], required)',
      'schema: field "path" no longer required',
      'schema: field "path" maxLength changed unset → 200',
      'schema: field "limit" type changed integer → string',
      'schema: field "limit" now required',
      'guard path_inside_workspace removed',
      'guard sql_heuristics added',
    ]);
  });
});

describe('on spans', () => {
  it('every execute_tool span carries the hash; the first call of each tool in a session the summary', async () => {
    const { gt, named } = traced();
    const tool = gt.tool(readSpec());
    gt.tool({ name: 'noop', description: 'n', schema: z.object({}), flags: { readOnly: true }, execute: () => 0 });
    const expected = toolDefinition(tool);
    for (const id of ['s1', 's2']) {
      const s = gt.session({ id, agentName: 'a' });
      await s.callTool('read_file', { path: 'src/a.ts' });
      await s.callTool('read_file', { path: '../x' });
      await s.callTool('noop', {});
      await s.end();
    }
    const calls = named('execute_tool');
    expect(calls).toHaveLength(6);
    const reads = calls.filter((c) => c.attributes['gen_ai.tool.name'] === 'read_file');
    expect(reads.map((c) => c.attributes[ATTR_GUARDTRACE_TOOL_DEFINITION_HASH])).toEqual([expected.hash, expected.hash, expected.hash, expected.hash]);
    expect(reads.map((c) => c.attributes[ATTR_GUARDTRACE_TOOL_DEFINITION] !== undefined)).toEqual([true, false, true, false]);
    expect(JSON.parse(String(reads[0]?.attributes[ATTR_GUARDTRACE_TOOL_DEFINITION]))).toEqual(expected.summary);
    const noops = calls.filter((c) => c.attributes['gen_ai.tool.name'] === 'noop');
    expect(noops.map((c) => c.attributes[ATTR_GUARDTRACE_TOOL_DEFINITION] !== undefined)).toEqual([true, true]);
  });

  it('a call of an unknown tool carries none; once corrected to a registered tool, that tool\'s', async () => {
    const { gt, named } = traced({ autoRepair: false });
    const tool = gt.tool(readSpec());
    const s = gt.session({ id: 's', agentName: 'a' });
    const r = await s.callTool('read_fil', { path: 'src/a.ts' }, { callId: 'c1' });
    expect(r.ok).toBe(false);
    await s.callTool('read_file', { path: 'src/a.ts' }, { callId: 'c1' });
    await s.end();
    const [call] = named('execute_tool');
    expect(call?.attributes[ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]).toBe(toolDefinition(tool).hash);
  });

  it('so do the calls an integration runs through the session (OpenAI tool calls)', async () => {
    const { gt, named } = traced();
    const tool = gt.tool(readSpec());
    const s = gt.session({ id: 's', agentName: 'a' });
    await runOpenAIToolCalls(s, { tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/a.ts"}' } },
      { id: 'c2', type: 'function', function: { name: 'read_file', arguments: '{"path":"docs/b.md"}' } },
    ] });
    await s.end();
    const calls = named('execute_tool');
    expect(calls.map((c) => c.attributes[ATTR_GUARDTRACE_TOOL_DEFINITION_HASH])).toEqual([toolDefinition(tool).hash, toolDefinition(tool).hash]);
    expect(calls.map((c) => typeof c.attributes[ATTR_GUARDTRACE_TOOL_DEFINITION])).toEqual(['string', 'undefined']);
  });
});
