/**
 * The alerts' per-minute rollup (alert_minutes) is kept per write batch by adding each batch's new
 * rows; these tests check it stays what a rebuild from the stored attempts and repair turns would
 * give after the paths that change stored rows without being new: a session's weight decided by a
 * later batch, a trace stored before its conversation id was known and then moved into its
 * session (re-keyed: the writer recomputes both sessions whole), held sessions the sampling sweep
 * deletes, and sessions retention deletes. Real HTTP, real Postgres (alerts-rollup-support.ts).
 * Rows that arrive before what names their tool: alerts-rollup-arrival.test.ts.
 */
import { applyRetention } from '@guardtrace/db/server';
import { describe, expect, it } from 'vitest';
import { sweepHeldSessions } from '../src/sampling-sweep.ts';
import { RATE, rollupHarness, rootSpan, sessionId, T0, toolCall, weightOf } from './alerts-rollup-support.ts';
import { failingSession } from './alerts-support.ts';
import { hex } from './helpers.ts';

const h = rollupHarness();
const { send, project, expectExact, runProcess } = h;

describe('alert_minutes equals its rebuild from the stored rows', () => {
  it("after a later batch changes a session's weight: its root brings it, or a failure keeps it whole", async () => {
    const p = await project();
    const start = T0;
    // A clean session the rate keeps (weight 4): its calls first, its root a batch later.
    const kept = sessionId('kept', true);
    const kt = hex(16);
    const kr = hex(8);
    await send(p.key, [...toolCall(kt, kr, kept, start + 100, 'search', ['success']), ...toolCall(kt, kr, kept, start + 400, 'search', ['success'])]);
    await expectExact(p.projectId, 'attempts before their root');
    await send(p.key, [rootSpan(kt, kr, kept, start, weightOf(kept, true))]);
    await expectExact(p.projectId, 'the root brings weight 4');
    // Another session kept at 4 by its first process, which a later batch sees fail: weight 1.
    const later = sessionId('later', true);
    const lt = hex(16);
    const lr = hex(8);
    await send(p.key, [rootSpan(lt, lr, later, start + 1_000, weightOf(later, true)), ...toolCall(lt, lr, later, start + 1_100, 'search', ['success'])]);
    await send(p.key, toolCall(hex(16), hex(8), later, start + 2_000, 'search', ['transient', 'success']), 'tool-service');
    await expectExact(p.projectId, 'a later failure keeps the session whole');
    // And a failing session beside them, with a repair turn.
    await send(p.key, failingSession({ startMs: start + 3_000, tool: 'search', failures: [{ cls: 'transient', repair: { model: 'gpt-4.1', input: 900, output: 50 } }] }).spans);
    await expectExact(p.projectId, 'a failing session beside them');
  });

  it('after traces stored before their conversation id was known are moved into their session', async () => {
    const p = await project();
    const start = T0 + 10 * 60_000;
    // The session as its agent's process sends it: one failure, so weight 1.
    const conv = sessionId('moved', true);
    const at = hex(16);
    const ar = hex(8);
    await send(p.key, [rootSpan(at, ar, conv, start, 1, 'failed'), ...toolCall(at, ar, conv, start + 100, 'search', ['transient', 'success'])]);
    // A tool service's part of it, clean, whose spans carry no conversation id yet: stored under its
    // trace id, with that process's verdict for a clean session (kept at 4).
    const bt = hex(16);
    const br = hex(8);
    await send(p.key, [rootSpan(bt, br, null, start + 1_000, weightOf(conv, true)), ...toolCall(bt, br, null, start + 1_100, 'fetch', ['success', 'success'])], 'tool-service');
    // Another part with a failure of its own, also without the conversation id yet.
    const ct = hex(16);
    const cr = hex(8);
    await send(p.key, [rootSpan(ct, cr, null, start + 2_000, 1, 'failed'), ...toolCall(ct, cr, null, start + 2_100, 'fetch', ['timeout', 'timeout'])], 'tool-service');
    // And a clean session's only part, whose conversation id comes last too (kept at 4 by the rate).
    const other = sessionId('moved', true);
    const dt = hex(16);
    const dr = hex(8);
    await send(p.key, [rootSpan(dt, dr, null, start + 5_000, weightOf(other, true)), ...toolCall(dt, dr, null, start + 5_100, 'search', ['success'])]);
    await expectExact(p.projectId, 'parts stored under their trace ids');
    // Their last spans name the conversation: the first two traces move into the session, the last
    // into a session of its own not stored before.
    await send(p.key, toolCall(bt, br, conv, start + 3_000, 'fetch', ['success']), 'tool-service');
    await send(p.key, toolCall(ct, cr, conv, start + 4_000, 'fetch', ['success']), 'tool-service');
    await send(p.key, toolCall(dt, dr, other, start + 6_000, 'search', ['success']));
    const { rows } = await h.env.sql.query<{ id: string; w: number }>('SELECT id, sampling_weight AS w FROM sessions WHERE project_id = $1 ORDER BY id', [
      p.projectId,
    ]);
    expect(rows).toEqual(
      [
        { id: conv, w: 1 },
        { id: other, w: 4 },
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
    await expectExact(p.projectId, 'parts moved into their session');
  });

  it('after the sampling sweep deletes the sessions every process would drop', async () => {
    const p = await project();
    const start = T0 + 20 * 60_000;
    const dropped = [sessionId('drop', false), sessionId('drop', false), sessionId('drop', false)];
    const keptId = sessionId('keep', true);
    const saved = sessionId('saved', false);
    // Clean sessions, each in two processes: the agent's part and a tool service's, both with the
    // verdict of the project's rate (0 for the dropped ones, 4 for the kept one).
    for (const [i, id] of [...dropped, keptId, saved].entries()) {
      const t = hex(16);
      const r = hex(8);
      await send(p.key, [rootSpan(t, r, id, start + i * 1_000, weightOf(id, true)), ...toolCall(t, r, id, start + i * 1_000 + 100, 'search', ['success', 'success'])]);
      const u = hex(16);
      const v = hex(8);
      // The tool service sees `saved` fail: that session is kept whole (weight 1).
      const failed = id === saved;
      await send(
        p.key,
        [rootSpan(u, v, id, start + i * 1_000 + 200, weightOf(id, !failed), failed ? 'failed' : 'success'), ...toolCall(u, v, id, start + i * 1_000 + 300, 'fetch', failed ? ['transient', 'success'] : ['success'])],
        'tool-service',
      );
    }
    await expectExact(p.projectId, 'held sessions stored at weight 0');
    expect(await sweepHeldSessions(h.env.sql, { decisionWaitMs: 0 })).toBe(dropped.length);
    const { rows } = await h.env.sql.query<{ id: string }>('SELECT id FROM sessions WHERE project_id = $1 ORDER BY id', [p.projectId]);
    expect(rows.map((r) => r.id)).toEqual([keptId, saved].sort());
    await expectExact(p.projectId, 'held sessions swept');
  });

  it("after the real SDK's processes send their parts at the project's rate and the sweep deletes the dropped sessions", async () => {
    const p = await project();
    const kept = [sessionId('sdk-kept', true), sessionId('sdk-kept', true)];
    const dropped = [sessionId('sdk-drop', false), sessionId('sdk-drop', false), sessionId('sdk-drop', false)];
    // A session the agent would drop but the tool service sees fail, and one the rate keeps that fails too.
    const saved = [sessionId('sdk-saved', false), sessionId('sdk-saved', true)];
    const all = [...kept, ...dropped, ...saved];
    await runProcess(p.key, 'agent', all.map((id) => ({ id, fail: false })));
    await expectExact(p.projectId, "the agent's parts");
    await runProcess(p.key, 'tool-service', all.map((id) => ({ id, fail: saved.includes(id) })));
    await expectExact(p.projectId, "the tool service's parts");
    expect(await sweepHeldSessions(h.env.sql, { decisionWaitMs: 0 })).toBe(dropped.length);
    const { rows } = await h.env.sql.query<{ id: string; w: number }>('SELECT id, sampling_weight AS w FROM sessions WHERE project_id = $1 ORDER BY id', [p.projectId]);
    expect(rows).toEqual([...kept.map((id) => ({ id, w: 1 / RATE })), ...saved.map((id) => ({ id, w: 1 }))].sort((a, b) => (a.id < b.id ? -1 : 1)));
    await expectExact(p.projectId, 'dropped sessions swept');
  }, 120_000);

  it('after retention deletes the sessions past it', async () => {
    const p = await project();
    await h.env.sql.query('UPDATE projects SET retention_days = 1 WHERE id = $1', [p.projectId]);
    const old = T0 + 30 * 60_000;
    const recent = old + 13 * 3_600_000;
    // Failing sessions in the same minutes, then one 13 hours later (past midnight UTC).
    for (const startMs of [old, old + 1_000, recent]) {
      await send(
        p.key,
        failingSession({ startMs, tool: 'search', failures: [{ cls: 'transient', repair: { model: 'gpt-4.1', input: 700, output: 30 } }, { cls: 'transient', decision: 'escalate_human' }] }).spans,
      );
    }
    const kept = sessionId('kept', true);
    const t = hex(16);
    const r = hex(8);
    await send(p.key, [rootSpan(t, r, kept, recent + 5_000, weightOf(kept, true)), ...toolCall(t, r, kept, recent + 5_100, 'search', ['success'])]);
    await expectExact(p.projectId, 'before retention');
    // A day after the first ones ended (plus 12 hours): they go, the later ones stay.
    const report = await applyRetention(h.env.db.url, { now: new Date(old + 36 * 3_600_000) });
    expect(report.deletedSessions).toBeGreaterThanOrEqual(2);
    const { rows } = await h.env.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE project_id = $1', [p.projectId]);
    expect(rows[0]?.n).toBe(2);
    await expectExact(p.projectId, 'after retention');
  });
});
