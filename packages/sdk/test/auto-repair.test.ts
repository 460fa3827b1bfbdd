import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ATTR_GUARDTRACE_AUTO_REPAIR_KIND,
  ATTR_GUARDTRACE_AUTO_REPAIR_POINTERS,
  ATTR_GUARDTRACE_AUTO_REPAIR_TOOL,
  ATTR_GUARDTRACE_DECISION,
  ATTR_GUARDTRACE_GUARD_POINTERS,
} from '@guardtrace/semconv';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { correctionNote } from '../src/auto-repair.ts';
import type { Guardtrace } from '../src/guardtrace.ts';
import { fileExists } from '../src/guards/files.ts';
import type { GuardtraceOptions } from '../src/runtime.ts';
import type { AutoRepairSetting, ToolFlags } from '../src/types.ts';
import { traced } from './helpers.ts';

// Repair in code, without a model turn, of mistakes with exactly one sound correction.

const root = mkdtempSync(path.join(tmpdir(), 'gt-autorepair-'));
mkdirSync(path.join(root, 'src/components'), { recursive: true });
mkdirSync(path.join(root, 'lib/a'), { recursive: true });
mkdirSync(path.join(root, 'lib/b'), { recursive: true });
writeFileSync(path.join(root, 'src/components/Button.tsx'), 'export {}\n');
writeFileSync(path.join(root, 'lib/a/util.ts'), '');
writeFileSync(path.join(root, 'lib/b/util.ts'), '');

type Ran = { tool: string; args: unknown }[];

function tools(gt: Guardtrace, opts: { search?: ToolFlags; create?: AutoRepairSetting; docs?: boolean } = {}): Ran {
  const ran: Ran = [];
  gt.tool({
    name: 'search_files',
    description: 'Search the files',
    schema: z.object({ query: z.string(), limit: z.number().int().optional() }),
    flags: opts.search ?? { readOnly: true },
    execute: (a) => {
      ran.push({ tool: 'search_files', args: a });
      return { hits: [`${a.query}.ts`] };
    },
  });
  if (opts.docs) {
    gt.tool({ name: 'search_docs', description: 'Search the docs', schema: z.object({ query: z.string() }), flags: { readOnly: true }, execute: (a) => ran.push({ tool: 'search_docs', args: a }) });
  }
  gt.tool({
    name: 'copy_file',
    description: 'Copy a file',
    schema: z.object({ source_path: z.string(), target_path: z.string() }),
    flags: { idempotent: true },
    execute: (a) => ran.push({ tool: 'copy_file', args: a }),
  });
  gt.tool({
    name: 'create_file',
    description: 'Create a file',
    schema: z.object({ path: z.string(), content: z.string() }),
    ...(opts.create !== undefined ? { autoRepair: opts.create } : {}),
    execute: (a) => {
      ran.push({ tool: 'create_file', args: a });
      return { written: a.path };
    },
  });
  gt.tool({
    name: 'read_file',
    description: 'Read a file',
    schema: z.object({ path: z.string() }),
    flags: { readOnly: true },
    guards: [fileExists<{ path: string }>({ root, paths: (a) => a.path })],
    execute: (a) => {
      ran.push({ tool: 'read_file', args: a });
      return 'export {}';
    },
  });
  return ran;
}

function setup(opts: Parameters<typeof tools>[1] = {}, gtOpts: GuardtraceOptions = {}) {
  const t = traced(gtOpts);
  const ran = tools(t.gt, opts);
  const s = t.gt.session({ id: 'sess_ar', agentName: 'a' });
  const attempts = (): ReadableSpan[] => t.named('guardtrace.attempt');
  const guardOf = (attempt: ReadableSpan | undefined): ReadableSpan | undefined =>
    attempt && t.childrenOf(attempt).find((g) => g.attributes['gen_ai.guardrail.verdict'] === 'fail');
  return { ...t, ran, s, attempts, guardOf };
}

describe('auto-repair', () => {
  it('renames an argument to its one close schema field and runs once; the trace has the repair and the pointers', async () => {
    const { s, ran, attempts, guardOf, named } = setup();
    const r = await s.callTool('search_files', '{"query_text":"Button","limit":3}', { callId: 'c1' });
    expect(r).toMatchObject({ ok: true, tool: 'search_files', value: { hits: ['Button.ts'] } });
    expect(ran).toEqual([{ tool: 'search_files', args: { query: 'Button', limit: 3 } }]);
    expect(r.ok && r.corrections).toEqual([
      { kind: 'argument_name', from: 'query_text', to: 'query', pointers: ['/query'], text: 'used argument `query` for `query_text`; search_files has no argument `query_text`' },
    ]);
    expect(r.attempts.map((a) => [a.attempt, a.decision, a.failureClass])).toEqual([[1, 'auto_repair', 'invalid_arguments'], [2, 'proceed', undefined]]);
    expect(correctionNote(r)).toBe('Corrected and ran (use the corrected call next time):\n- used argument `query` for `query_text`; search_files has no argument `query_text`');
    await s.end();

    const [a1, a2] = attempts();
    expect(a1?.attributes).toMatchObject({
      [ATTR_GUARDTRACE_DECISION]: 'auto_repair', 'guardtrace.outcome': 'rejected', 'guardtrace.failure.class': 'invalid_arguments',
      [ATTR_GUARDTRACE_AUTO_REPAIR_KIND]: 'argument_name', [ATTR_GUARDTRACE_AUTO_REPAIR_POINTERS]: ['/query'],
      'gen_ai.tool.call.arguments': '{"query_text":"Button","limit":3}',
    });
    expect(a1?.attributes[ATTR_GUARDTRACE_AUTO_REPAIR_TOOL]).toBeUndefined();
    // before: the schema guard's pointers (the unknown field and the missing one)
    expect(guardOf(a1)?.attributes).toMatchObject({ [ATTR_GUARDTRACE_DECISION]: 'auto_repair', [ATTR_GUARDTRACE_GUARD_POINTERS]: ['/query', '/query_text'] });
    expect(a2?.attributes).toMatchObject({ [ATTR_GUARDTRACE_DECISION]: 'proceed', 'guardtrace.attempt': 2, 'gen_ai.tool.call.arguments': '{"query":"Button","limit":3}' });
    expect(named('execute_tool')[0]?.attributes).toMatchObject({ 'guardtrace.outcome': 'success', 'guardtrace.attempt': 2 });
  });

  it('spends no rejection and no repair tokens: the model still gets its full rejection budget', async () => {
    const { s, ran } = setup({}, { budgets: { rejectionsPerTask: 1 } });
    expect((await s.callTool('search_files', { querry: 'a' })).ok).toBe(true);
    const rejected = await s.callTool('search_files', { query: 1 });
    expect(rejected).toMatchObject({ ok: false, decision: 'reject_with_feedback', awaitingCorrection: true });
    expect(s.tokens.repair).toBe(0);
    expect(ran).toHaveLength(1);
    await s.end();
  });

  it('does not repair when the name has two close fields, or when the renamed arguments do not validate', async () => {
    const { s, ran, attempts } = setup();
    // `path` is close to both source_path and target_path, and both are missing
    const two = await s.callTool('copy_file', { path: 'a' }, { callId: 'c1' });
    expect(two).toMatchObject({ ok: false, failureClass: 'invalid_arguments', decision: 'reject_with_feedback', awaitingCorrection: true });
    expect(two.ok ? '' : two.feedback).toContain('Unexpected field: "path"');
    expect(two.corrections).toBeUndefined();
    s.startTask();
    const invalid = await s.callTool('search_files', { query_text: 42 }, { callId: 'c2' });
    expect(invalid).toMatchObject({ ok: false, failureClass: 'invalid_arguments', decision: 'reject_with_feedback' });
    expect(ran).toEqual([]);
    await s.end();
    expect(attempts().map((a) => a.attributes[ATTR_GUARDTRACE_DECISION])).toEqual(['reject_with_feedback', 'reject_with_feedback']);
  });

  it('calls the one close tool whose schema the arguments satisfy, and says so', async () => {
    const { s, ran, attempts, named } = setup();
    const r = await s.callTool('search_codebase', { query: 'Button' }, { callId: 'c1' });
    expect(r).toMatchObject({ ok: true, tool: 'search_files' });
    expect(r.ok && r.corrections?.map((c) => c.text)).toEqual(['called `search_files`; `search_codebase` does not exist']);
    expect(ran).toEqual([{ tool: 'search_files', args: { query: 'Button' } }]);
    await s.end();
    expect(named('execute_tool').map((t) => t.name)).toEqual(['execute_tool search_files']);
    const [a1, a2] = attempts();
    expect(a1?.attributes).toMatchObject({
      'gen_ai.tool.name': 'search_codebase', [ATTR_GUARDTRACE_DECISION]: 'auto_repair', 'guardtrace.failure.class': 'unknown_tool',
      [ATTR_GUARDTRACE_AUTO_REPAIR_KIND]: 'tool_name', [ATTR_GUARDTRACE_AUTO_REPAIR_TOOL]: 'search_files',
    });
    expect(a1?.attributes[ATTR_GUARDTRACE_AUTO_REPAIR_POINTERS]).toBeUndefined();
    expect(a2?.attributes).toMatchObject({ 'gen_ai.tool.name': 'search_files', [ATTR_GUARDTRACE_DECISION]: 'proceed' });
  });

  it('does not pick between two close tools that both accept the arguments', async () => {
    const { s, ran } = setup({ docs: true });
    const r = await s.callTool('search_codebase', { query: 'Button' });
    expect(r).toMatchObject({ ok: false, failureClass: 'unknown_tool', awaitingCorrection: true });
    expect(r.ok ? '' : r.feedback).toContain('Unknown tool "search_codebase"');
    expect(ran).toEqual([]);
    await s.end();
  });

  it('never runs a non-idempotent tool with arguments the model did not send unless the tool opts in', async () => {
    const off = setup({}, { autoRepair: true });
    const r = await off.s.callTool('create_file', { filepath: 'a.ts', content: 'x' });
    expect(r).toMatchObject({ ok: false, failureClass: 'invalid_arguments', decision: 'reject_with_feedback' });
    // nor under another name: the one close tool is not idempotent
    off.s.startTask();
    expect(await off.s.callTool('create_files', { path: 'a.ts', content: 'x' })).toMatchObject({ ok: false, failureClass: 'unknown_tool' });
    expect(off.ran).toEqual([]);
    await off.s.end();

    const on = setup({ create: { argumentNames: true } });
    const ok = await on.s.callTool('create_file', { filepath: 'a.ts', content: 'x' });
    expect(ok).toMatchObject({ ok: true, value: { written: 'a.ts' } });
    expect(on.ran).toEqual([{ tool: 'create_file', args: { path: 'a.ts', content: 'x' } }]);
    // the opt-in is per kind: tool names stay off
    expect(await on.s.callTool('create_files', { path: 'b.ts', content: 'x' })).toMatchObject({ ok: false, failureClass: 'unknown_tool' });
    await on.s.end();
  });

  it('is off where the global or the tool setting turns it off', async () => {
    const { s, ran } = setup({ search: { readOnly: true } }, { autoRepair: { argumentNames: false } });
    expect(await s.callTool('search_files', { query_text: 'a' })).toMatchObject({ ok: false, failureClass: 'invalid_arguments' });
    s.startTask();
    expect(await s.callTool('search_codebase', { query: 'a' })).toMatchObject({ ok: true, tool: 'search_files' });
    expect(ran).toHaveLength(1);
    await s.end();
  });

  it('uses the one path the files guard finds, and not one of two', async () => {
    const { s, ran, attempts, guardOf } = setup();
    const r = await s.callTool('read_file', { path: 'src/Button.tsx' }, { callId: 'c1' });
    expect(r).toMatchObject({ ok: true, value: 'export {}' });
    expect(r.ok && r.corrections).toEqual([
      { kind: 'path', from: 'src/Button.tsx', to: 'src/components/Button.tsx', pointers: ['/path'], text: 'used path `src/components/Button.tsx`; `src/Button.tsx` does not exist' },
    ]);
    expect(ran).toEqual([{ tool: 'read_file', args: { path: 'src/components/Button.tsx' } }]);
    const two = await s.callTool('read_file', { path: 'util.ts' }, { callId: 'c2' });
    expect(two).toMatchObject({ ok: false, failureClass: 'missing_resource', candidates: ['lib/a/util.ts', 'lib/b/util.ts'] });
    expect(ran).toHaveLength(1);
    await s.end();

    const [a1, a2, a3] = attempts();
    expect(a1?.attributes).toMatchObject({ [ATTR_GUARDTRACE_DECISION]: 'auto_repair', 'guardtrace.failure.class': 'missing_resource', [ATTR_GUARDTRACE_AUTO_REPAIR_KIND]: 'path', [ATTR_GUARDTRACE_AUTO_REPAIR_POINTERS]: ['/path'] });
    expect(guardOf(a1)?.attributes).toMatchObject({ 'gen_ai.guardrail.name': 'file_exists', [ATTR_GUARDTRACE_GUARD_POINTERS]: ['/path'], [ATTR_GUARDTRACE_DECISION]: 'auto_repair' });
    expect(a2?.attributes['gen_ai.tool.call.arguments']).toBe('{"path":"src/components/Button.tsx"}');
    expect(a3?.attributes[ATTR_GUARDTRACE_DECISION]).toBe('replan');
  });

  it('chains corrections of two kinds, refuses a tool whose schema refuses the arguments, and says what a failed call ran as', async () => {
    const { s } = setup();
    const r = await s.callTool('search_codebase', { query: 'x', limit: 1.5 });
    // one close tool by name, but its schema refuses the arguments: no repair
    expect(r).toMatchObject({ ok: false, failureClass: 'unknown_tool' });
    const chained = await s.callTool('read_fil', { path: 'src/Button.tsx' });
    expect(chained).toMatchObject({ ok: true, tool: 'read_file' });
    expect(chained.corrections?.map((c) => c.kind)).toEqual(['tool_name', 'path']);
    const failed = await s.callTool('read_fil', { path: 'nothing/like/it.xyz' });
    expect(failed).toMatchObject({ ok: false, tool: 'read_file', failureClass: 'missing_resource' });
    expect(failed.ok ? '' : failed.feedback).toMatch(/^Corrected and ran \(use the corrected call next time\):\n- called `read_file`; `read_fil` does not exist\n\nTOOL CALL REJECTED: Path not found: nothing\/like\/it.xyz/);
    await s.end();
  });

  it("applies a custom guard's one sound correction only where the arguments hold what it names, within the attempt cap", async () => {
    const t = traced();
    const ran: unknown[] = [];
    const spec = (name: string, maxAttempts?: number) => ({
      name,
      description: 'Get a report',
      schema: z.object({ report: z.string() }),
      flags: { readOnly: true },
      ...(maxAttempts ? { maxAttempts } : {}),
      guards: [{
        name: 'report_exists',
        check: (a: { report: string }) =>
          a.report === 'rep_own' ? { pass: true as const } : { pass: false as const, reason: 'no such report', failureClass: 'missing_resource' as const, pointers: ['/report'], repair: { pointer: '/report', from: 'rep_0wn', to: 'rep_own' } },
      }],
      execute: (a: { report: string }) => ran.push(a),
    });
    t.gt.tool(spec('get_report'));
    t.gt.tool(spec('get_report_once', 1));
    const s = t.gt.session({ agentName: 'a' });
    expect(await s.callTool('get_report', { report: 'rep_0wn' })).toMatchObject({ ok: true, corrections: [{ kind: 'path', from: 'rep_0wn', to: 'rep_own', pointers: ['/report'] }] });
    // the arguments do not hold `from` at the pointer: nothing is guessed
    expect(await s.callTool('get_report', { report: 'other' })).toMatchObject({ ok: false, failureClass: 'missing_resource' });
    // a call with one attempt has none left for the repaired one
    expect(await s.callTool('get_report_once', { report: 'rep_0wn' })).toMatchObject({ ok: false, failureClass: 'missing_resource' });
    expect(ran).toEqual([{ report: 'rep_own' }]);
    await s.end();
  });
});
