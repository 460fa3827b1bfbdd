/**
 * Guards-only evaluation (`gt.check`, `gt.checkSession`): the decision, class and feedback a
 * real `callTool` gives, without running the tool, emitting spans, or touching real sessions'
 * locks and idempotency store.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { predicate, resourceLock } from '../src/index.ts';
import { traced } from './helpers.ts';

function setup() {
  const t = traced();
  const ran: string[] = [];
  t.gt.tool({
    name: 'read_file', description: 'r', flags: { readOnly: true },
    schema: z.object({ path: z.string() }),
    guards: [
      predicate<{ path: string }>({ name: 'no_secrets', test: (a) => !a.path.includes('secret'), message: 'secrets are off limits', pointers: ['/path'] }),
      { name: 'not_empty', stage: 'post_execution', check: (_a, ctx) => (ctx.result === '' ? { pass: false, reason: 'empty', failureClass: 'execution_feedback' } : { pass: true }) },
    ],
    execute: (a) => {
      ran.push(`read ${a.path}`);
      return a.path.endsWith('.empty') ? '' : 'text';
    },
  });
  t.gt.tool({
    name: 'write_file', description: 'w',
    schema: z.object({ path: z.string(), text: z.string() }),
    guards: [resourceLock<{ path: string }>({ resource: (a) => a.path })],
    execute: (a) => {
      ran.push(`write ${a.path}`);
      return 'ok';
    },
  });
  return { ...t, ran };
}

describe('gt.check', () => {
  it('decides as callTool does (schema, logical guards, class, decision, feedback) without running the tool or emitting a span', async () => {
    const { gt, ran, spans } = setup();
    const cases: [string, unknown][] = [
      ['read_file', { path: 'src/a.ts' }],
      ['read_file', { path: 'secret/key' }],
      ['read_file', { path: 42 }],
      ['read_file', '{"path": "a", "extra": 1}'],
      ['write_file', { path: 'a' }],
      ['reed_file', { path: 'a', x: 1 }],
    ];
    const checked = [];
    for (const [tool, args] of cases) checked.push(await gt.check(tool, args));
    expect(ran).toEqual([]);
    expect(spans()).toEqual([]);
    for (const [i, [tool, args]] of cases.entries()) {
      const s = gt.session({ agentName: 'real' });
      const real = await s.callTool(tool, args);
      const c = checked[i]!;
      expect(c.allowed, tool).toBe(real.ok);
      expect(c.decision).toBe(real.ok ? 'proceed' : real.decision);
      expect(c.failureClass).toBe(real.ok ? null : real.failureClass);
      expect(c.feedback).toBe(real.ok ? null : real.feedback);
      expect(c.failed.map((g) => [g.name, g.pointers])).toEqual(real.attempts.flatMap((a) => a.guards.filter((g) => g.verdict === 'fail').map((g) => [g.name, g.pointers])));
    }
    expect(checked.map((c) => [c.allowed, c.failureClass])).toEqual([
      [true, null], [false, 'guard_violation'], [false, 'invalid_arguments'], [false, 'invalid_arguments'], [false, 'invalid_arguments'], [false, 'unknown_tool'],
    ]);
    expect(checked[1]?.feedback).toBe('TOOL CALL REJECTED: secrets are off limits');
    expect(checked[1]?.failed.map((g) => g.pointers)).toEqual([['/path']]);
  });

  it('applies auto-repair as callTool does: the repaired call is allowed and says what was corrected', async () => {
    const { gt } = setup();
    const c = await gt.check('read_file', { pth: 'src/a.ts' });
    expect(c.allowed).toBe(true);
    expect(c.attempts.map((a) => a.decision)).toEqual(['auto_repair', 'proceed']);
    expect(c.corrections.map((x) => x.text)).toEqual(['used argument `path` for `pth`; read_file has no argument `pth`']);
  });

  it('execute read-only runs read-only tools and their post-execution guards, never the others', async () => {
    const { gt, ran } = setup();
    const ok = await gt.check('read_file', { path: 'a.ts' }, { execute: 'read-only' });
    expect([ok.allowed, ok.executed, ok.value]).toEqual([true, true, 'text']);
    const post = await gt.check('read_file', { path: 'a.empty' }, { execute: 'read-only' });
    expect([post.allowed, post.executed, post.failureClass, post.decision]).toEqual([true, true, 'execution_feedback', 'reject_with_feedback']);
    const w = await gt.check('write_file', { path: 'a', text: 't' }, { execute: 'read-only' });
    expect([w.allowed, w.executed]).toEqual([true, false]);
    expect(ran).toEqual(['read a.ts', 'read a.empty']);
  });

  it('leaves the real sessions\' locks and idempotency store alone', async () => {
    const { gt, ran } = setup();
    const real = gt.session({ agentName: 'real' });
    // a real call holding the lock on "a" while the check runs
    let release!: () => void;
    gt.tool({ name: 'slow_write', description: 's', schema: z.object({ path: z.string() }), guards: [resourceLock<{ path: string }>({ resource: (a) => a.path })], execute: () => new Promise<void>((r) => { release = r; }) });
    const pending = real.callTool('slow_write', { path: 'a' });
    await new Promise((r) => setImmediate(r));
    expect(gt.lockHolder('a')).toBeDefined();
    const c = await gt.check('write_file', { path: 'a', text: 't' });
    expect(c.allowed).toBe(true);
    release();
    await pending;
    // a checked side-effecting call is not in the store: the real one runs
    const same = gt.checkSession();
    await same.callTool('write_file', { path: 'b', text: 't' });
    expect((await real.callTool('write_file', { path: 'b', text: 't' })).ok).toBe(true);
    expect(ran).toEqual(['write b']);
  });

  it('a check session keeps session rules across its calls: the same rejection is not sent twice', async () => {
    const { gt } = setup();
    const s = gt.checkSession();
    const a = await s.callTool('read_file', { path: 'secret/x' });
    const b = await s.callTool('read_file', { path: 'secret/x' });
    expect(a.ok || b.ok).toBe(false);
    if (!a.ok && !b.ok) {
      expect(a.feedback).toBe('TOOL CALL REJECTED: secrets are off limits');
      expect(b.feedback).toContain('already rejected');
    }
  });
});
