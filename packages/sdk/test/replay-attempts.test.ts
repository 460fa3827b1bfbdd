
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { insideWorkspace } from '../src/guards/files.ts';
import { Guardtrace, TransientFailure } from '../src/index.ts';
import { failedBy, replayDataset, replayItem } from '../src/replay/index.ts';
import { itemsFromSpans } from './dataset-items.ts';
import { traced } from './helpers.ts';
import { record, registerTools, root, V1 } from './replay-v1-tools.ts';

describe('calls of several attempts', () => {
  it('replays a model correction and an auto-repair in order, as the runtime made them', async () => {
    const { gt, spans } = traced();
    registerTools(gt, V1, true);
    const s = gt.session({ id: 'multi', agentName: 'agent' });
    const first = await s.callTool('query_db', { sql: 42 }, { callId: 'q1' });
    expect(first.ok).toBe(false);
    expect((await s.callTool('query_db', { sql: 'SELECT 1' }, { callId: 'q1' })).ok).toBe(true);
    // query_db is read-only: the misspelt argument is repaired in code
    const repaired = await s.callTool('query_db', { sqll: 'SELECT 2' }, { callId: 'q2' });
    expect(repaired.attempts.map((a) => a.decision)).toEqual(['auto_repair', 'proceed']);
    await s.end();
    const items = itemsFromSpans(spans());
    expect(items.map((x) => x.attempts.map((a) => a.decision))).toEqual([['reject_with_feedback', 'proceed'], ['auto_repair', 'proceed']]);

    const same = registerTools(new Guardtrace({ tracing: false }), V1);
    const unchanged = await replayDataset(same, items);
    expect(unchanged.summary).toMatchObject({ calls: 2, attempts: 4, unchanged: 4 });

    // auto-repair switched off: the call the model got through (repaired in code) is now rejected for
    // it to fix; the corrected attempt the runtime made then is not made now, and not the model's to replay
    const strict = new Guardtrace({ tracing: false, autoRepair: false });
    registerTools(strict, V1);
    const r = await replayItem(strict, items[1]!);
    expect(r.map((x) => [x.attempt, x.change, x.now?.decision ?? null])).toEqual([[1, 'newly_rejected', 'reject_with_feedback'], [2, 'not_replayed', null]]);
    expect(r[0]!.recorded).toMatchObject({ allowed: true, decision: 'auto_repair' });
    expect(r[1]!.error).toBe('a call the runtime made by itself after it repaired attempt 1 in code (auto_repair); attempt 1 is now rejected, not repaired, so this call is not made');
    const run = await replayDataset(strict, items, { failOn: ['newly_rejected'] });
    expect(run.summary).toMatchObject({ newly_rejected: 1, not_replayed: 1, unchanged: 2 });
    expect(failedBy(run)).toHaveLength(1);
  });

  it('a call the current tools repair in code is judged by what the repaired call then gets: through (with a note for the model), or rejected', async () => {
    // recorded under v1: { path } calls, let through
    const items = await record();
    // now: the field is renamed `filePath`, auto-repair on (read_file is read-only): `path` is repaired to `filePath` and run again
    const renamed = (folders: string[]) => {
      const gt = new Guardtrace({ tracing: false });
      gt.tool({
        name: 'read_file', description: 'Reads a file', flags: { readOnly: true },
        schema: z.strictObject({ filePath: z.string() }),
        guards: [insideWorkspace({ root, paths: (a: { filePath: string }) => a.filePath, folders })],
        execute: () => { throw new Error('a replay ran read_file'); },
      });
      return gt;
    };
    const reads = items.filter((x) => x.tool === 'read_file' && !JSON.stringify(x.attempts[0]?.arguments).includes('..'));
    expect(reads.map((x) => x.attempts[0]?.arguments)).toEqual([{ path: 'src/a.ts' }, { path: 'docs/b.md' }]);
    const through = await replayDataset(renamed(['src', 'docs']), reads);
    // the model's call still gets through: not "newly rejected"; what changed is the note it is now shown
    expect(through.results.map((r) => [r.arguments, r.change, r.now?.allowed, r.now?.decision])).toEqual([
      [{ path: 'src/a.ts' }, 'feedback_changed', true, 'auto_repair'],
      [{ path: 'docs/b.md' }, 'feedback_changed', true, 'auto_repair'],
    ]);
    expect(through.results[0]?.now?.feedback).toMatch(/`filePath`.*`path`/);
    // the repaired call rejected by a guard (docs removed): newly rejected, by that guard, with its feedback
    const rejected = await replayDataset(renamed(['src']), reads);
    expect(rejected.results.map((r) => [r.arguments, r.change, r.now?.failureClass, r.now?.checks.map((c) => c.guard)])).toEqual([
      [{ path: 'src/a.ts' }, 'feedback_changed', null, []],
      [{ path: 'docs/b.md' }, 'newly_rejected', 'guard_violation', ['path_inside_workspace']],
    ]);
    expect(rejected.results[1]?.now?.feedback).toContain('is outside the folders this tool may use: src');
    expect(rejected.summary).toMatchObject({ calls: 2, attempts: 2, newly_rejected: 1, feedback_changed: 1 });
  });

  it('automatic retries the runtime made after a transient failure are not replayed as the model\'s calls once the first attempt is rejected', async () => {
    const { gt, spans } = traced();
    let n = 0;
    const fetchTool = (g: Guardtrace, schema: z.ZodType) =>
      g.tool({
        name: 'fetch_url', description: 'f', flags: { readOnly: true, idempotent: true }, schema,
        execute: () => {
          if (n++ < 2) throw new TransientFailure('503 from upstream');
          return 'ok';
        },
      });
    fetchTool(gt, z.object({ url: z.string() }));
    const s = gt.session({ id: 'flaky', agentName: 'agent' });
    expect(await s.callTool('fetch_url', { url: 'https://example.com/' })).toMatchObject({ ok: true });
    await s.end();
    const items = itemsFromSpans(spans());
    expect(items[0]?.attempts.map((a) => a.decision)).toEqual(['retry_backoff', 'retry_backoff', 'proceed']);
    // the same guards: every attempt decided as recorded
    const same = new Guardtrace({ tracing: false });
    fetchTool(same, z.object({ url: z.string() }));
    expect((await replayDataset(same, items)).summary).toMatchObject({ calls: 1, attempts: 3, unchanged: 3 });
    // a schema the URL fails: the model's one call is rejected once; the runtime would make no retry
    const strict = new Guardtrace({ tracing: false });
    fetchTool(strict, z.object({ url: z.string().endsWith('.json') }));
    const report = await replayDataset(strict, items);
    expect(report.summary).toMatchObject({ calls: 1, attempts: 3, newly_rejected: 1, not_replayed: 2 });
    expect(report.results.map((r) => [r.attempt, r.change, r.error ?? null])).toEqual([
      [1, 'newly_rejected', null],
      [2, 'not_replayed', 'an automatic retry the runtime made after attempt 1 failed (retry_backoff); attempt 1 is now rejected before it runs, so no retry is made'],
      [3, 'not_replayed', 'an automatic retry the runtime made after attempt 2 failed (retry_backoff); attempt 2 is now not made, so no retry is made'],
    ]);
  });

  it('a rejection escalated because the session\'s budget ran out on calls the dataset leaves out is not reported as changed feedback', async () => {
    const { gt, spans } = traced();
    registerTools(gt, V1, true);
    gt.tool({ name: 'invoice', description: 'i', schema: z.strictObject({ customer: z.string(), amount: z.number().positive() }), execute: () => 'ok' });
    const s = gt.session({ id: 'budget', agentName: 'agent' });
    // two rejections of other calls spend the task's rejection budget (2): the third escalates
    await s.callTool('query_db', { sql: 1 }, { intentId: 'a' });
    await s.callTool('open_ticket', { title: 2 }, { intentId: 'b' });
    const third = await s.callTool('invoice', { customer: 'a', amount: -3 }, { intentId: 'c' });
    expect(third).toMatchObject({ ok: false, decision: 'escalate_human', escalation: { reason: 'rejections_per_task' } });
    await s.end();
    // in the order the calls were made, as a dataset lists them (the spans end in another order)
    const order = ['query_db', 'open_ticket', 'invoice'];
    const items = itemsFromSpans(spans()).sort((x, y) => order.indexOf(x.tool) - order.indexOf(y.tool));
    const same = registerTools(new Guardtrace({ tracing: false }), V1);
    same.tool({ name: 'invoice', description: 'i', schema: z.strictObject({ customer: z.string(), amount: z.number().positive() }), execute: () => 'ok' });
    // the whole session: the budget runs out as it did
    const whole = await replayDataset(same, items);
    expect(whole.summary).toMatchObject({ calls: 3, attempts: 3, unchanged: 3 });
    // only the invoice call (a `tool:invoice` dataset): the budget its escalation came from is not in the replay
    const alone = await replayDataset(same, items.filter((x) => x.tool === 'invoice'));
    expect(alone.results.map((r) => [r.change, r.error])).toEqual([
      ['not_replayed', 'escalated when recorded because the session ran out of its rejections_per_task budget, which the session\'s other calls spent; the guards decide it as recorded (invalid_arguments, the same feedback), but this replay cannot say whether the budget would run out again'],
    ]);
    // older items, without budgetExhausted: told by the recorded feedback
    const older = items.filter((x) => x.tool === 'invoice').map((x) => ({ ...x, attempts: x.attempts.map(({ budgetExhausted: _b, ...a }) => a) }));
    expect((await replayDataset(same, older)).summary).toMatchObject({ not_replayed: 1 });
    // a guard change underneath is still reported
    const loose = registerTools(new Guardtrace({ tracing: false }), V1);
    loose.tool({ name: 'invoice', description: 'i', schema: z.strictObject({ customer: z.string(), amount: z.number() }), execute: () => 'ok' });
    expect((await replayDataset(loose, items.filter((x) => x.tool === 'invoice'))).summary).toMatchObject({ newly_allowed: 1 });
  });

  it('a call escalated because an identical call was rejected earlier in the session, which the dataset leaves out, is not reported as changed feedback', async () => {
    const { gt, spans } = traced();
    registerTools(gt, V1, true);
    const s = gt.session({ id: 'repeated', agentName: 'agent' });
    // the model sends the same rejected call again, as new calls: the runtime does not send it twice
    const first = await s.callTool('read_file', { path: '../etc/passwd' }, { callId: 'r1' });
    const again = await s.callTool('read_file', { path: '../etc/passwd' }, { callId: 'r2' });
    const firstDecision = first.ok ? 'proceed' : first.decision;
    expect(firstDecision).not.toBe('escalate_human');
    expect(again).toMatchObject({ ok: false, decision: 'escalate_human', escalation: { reason: 'repeated_rejection' } });
    await s.end();
    const items = itemsFromSpans(spans()).sort((x, y) => x.spanId.localeCompare(y.spanId));
    const byCall = (id: string) => items.filter((x) => x.attempts.some((a) => a.decision === (id === 'r1' ? firstDecision : 'escalate_human')));
    const same = registerTools(new Guardtrace({ tracing: false }), V1);
    // both calls, in the order they were made: the second escalates again
    const ordered = [...byCall('r1'), ...byCall('r2')];
    expect((await replayDataset(same, ordered)).summary).toMatchObject({ calls: 2, unchanged: 2 });
    // only the escalated call (a `decision:escalate_human` dataset, or its fixture): the earlier rejection is not in the replay
    const alone = await replayDataset(same, byCall('r2'));
    expect(alone.results.map((r) => [r.change, r.error])).toEqual([
      ['not_replayed', "escalated when recorded because an identical call was rejected earlier in the session with the same feedback (repeated_rejection), a call this replay does not hold; the guards decide it as recorded (guard_violation, the same feedback), but whether that earlier rejection happens again depends on the session's other calls"],
    ]);
    // a guard change underneath is still reported: read_file without its path guards lets it through
    const loose = new Guardtrace({ tracing: false });
    loose.tool({ name: 'read_file', description: 'Reads a file', flags: { readOnly: true }, schema: z.object({ path: z.string() }), execute: () => 'x' });
    expect((await replayDataset(loose, byCall('r2'))).summary).toMatchObject({ newly_allowed: 1, not_replayed: 0 });
  });

  it('execute read-only runs read-only tools only', async () => {
    const items = await record();
    const ran: string[] = [];
    const gt = new Guardtrace({ tracing: false });
    gt.tool({ name: 'query_db', description: 'q', flags: { readOnly: true }, schema: z.object({ sql: z.string() }), execute: (a) => { ran.push(a.sql); return []; } });
    gt.tool({ name: 'open_ticket', description: 't', schema: z.object({ title: z.string() }), execute: () => { ran.push('ticket'); } });
    const report = await replayDataset(gt, items.filter((x) => x.tool !== 'read_file'), { execute: 'read-only' });
    expect(ran).toEqual(['SELECT id FROM users', 'SELECT * FROM users', 'SELECT * FROM events', 'DELETE FROM users']);
    expect(report.summary).toMatchObject({ calls: 5, newly_allowed: 3, unchanged: 2 });
  });
});
