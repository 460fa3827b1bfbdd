import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Guardtrace } from '../src/guardtrace.ts';
import type { GuardtraceOptions } from '../src/runtime.ts';
import { sessionHash } from '../src/sampling.ts';
import type { CaptureMode } from '../src/types.ts';
import { traced } from './helpers.ts';

// Content capture: which attempt spans carry gen_ai.tool.call.arguments / .result.

const ARGS = 'gen_ai.tool.call.arguments';
const RESULT = 'gen_ai.tool.call.result';

function setup(gtOpts: GuardtraceOptions, toolCapture?: CaptureMode) {
  const t = traced(gtOpts);
  t.gt.tool({
    name: 'search_files',
    description: 'Search the files',
    schema: z.object({ query: z.string(), limit: z.number().int().optional() }),
    flags: { readOnly: true },
    ...(toolCapture ? { capture: toolCapture } : {}),
    execute: (a) => ({ hits: [`${a.query}.ts`] }),
  });
  const content = (): [string | undefined, string | undefined][] =>
    t.named('guardtrace.attempt').map((s: ReadableSpan) => [s.attributes[ARGS] as string | undefined, s.attributes[RESULT] as string | undefined]);
  return { ...t, content };
}

/** The first session ids (s0, s1, ...) whose hash is under / at least `rate`: sampled in / out. */
function ids(rate: number): { inside: string; outside: string } {
  let inside: string | undefined;
  let outside: string | undefined;
  for (let i = 0; inside === undefined || outside === undefined; i++) {
    const id = `s${i}`;
    if (sessionHash(id) < rate) inside ??= id;
    else outside ??= id;
  }
  return { inside, outside };
}

describe('capture', () => {
  it("'all' puts arguments and result on a clean call's attempt, in any session", async () => {
    const { gt, content } = setup({ capture: 'all', sampling: { cleanSessionRate: 0 } });
    const s = gt.session({ agentName: 'a' });
    await s.callTool('search_files', { query: 'Button' });
    await s.end();
    expect(content()).toEqual([['{"query":"Button"}', '{"hits":["Button.ts"]}']]);
  });

  it("the default is 'failures': at the default rate of 1 every clean session is sampled in and keeps its content; at rate 0 none is", async () => {
    for (const [rate, expected] of [
      [undefined, [['{"query":"Button"}', '{"hits":["Button.ts"]}']]],
      [0, [[undefined, undefined]]],
    ] as const) {
      const { gt, content } = setup(rate === undefined ? {} : { sampling: { cleanSessionRate: rate } });
      const s = gt.session({ agentName: 'a' });
      await s.callTool('search_files', { query: 'Button' });
      await s.end();
      expect(content()).toEqual(expected);
    }
  });

  it("'failures' leaves a clean call bare and records every attempt of a call that failed or was repaired", async () => {
    const { gt, content, named } = setup({ capture: 'failures', sampling: { cleanSessionRate: 0 } });
    const s = gt.session({ agentName: 'a' });
    expect((await s.callTool('search_files', { query: 'clean' }, { callId: 'c1' })).ok).toBe(true);
    // rejected (a number is no string, nothing to repair), then corrected by the model
    const r1 = await s.callTool('search_files', { query: 7 }, { callId: 'c2' });
    expect(r1).toMatchObject({ ok: false, failureClass: 'invalid_arguments' });
    expect((await s.callTool('search_files', { query: 'fixed' }, { callId: 'c2' })).ok).toBe(true);
    // an argument name repaired in code: the replay's diff needs the arguments before the repair
    const r3 = await s.callTool('search_files', '{"query_text":"Repaired"}', { callId: 'c3' });
    expect(r3.ok && r3.corrections?.length).toBe(1);
    await s.end();

    expect(content()).toEqual([
      [undefined, undefined],
      ['{"query":7}', undefined],
      ['{"query":"fixed"}', '{"hits":["fixed.ts"]}'],
      ['{"query_text":"Repaired"}', undefined],
      ['{"query":"Repaired"}', '{"hits":["Repaired.ts"]}'],
    ]);
    // what the collector reads besides the content stays on every attempt
    const [clean, rejected] = named('guardtrace.attempt');
    expect(clean?.attributes).toMatchObject({ 'guardtrace.outcome': 'success', 'guardtrace.decision': 'proceed', 'gen_ai.tool.call.id': 'c1' });
    expect(rejected?.attributes).toMatchObject({ 'guardtrace.failure.class': 'invalid_arguments', 'guardtrace.decision': 'reject_with_feedback' });
  });

  it("'failures' records the clean calls of a session sampled in at the project's rate, and only those", async () => {
    const { inside, outside } = ids(0.5);
    const { gt, content } = setup({ capture: 'failures', sampling: { cleanSessionRate: () => 0.5 } });
    for (const id of [inside, outside]) {
      const s = gt.session({ id, agentName: 'a' });
      await s.callTool('search_files', { query: id });
      await s.end();
    }
    expect(content()).toEqual([[`{"query":"${inside}"}`, `{"hits":["${inside}.ts"]}`], [undefined, undefined]]);
  });

  it("'none' records no content, even of a failed attempt, and keeps its class, decision and pointers", async () => {
    const { gt, content, named, childrenOf } = setup({ capture: 'none' });
    const s = gt.session({ agentName: 'a' });
    await s.callTool('search_files', { query: 7 }, { callId: 'c1' });
    await s.callTool('search_files', { query: 'ok' }, { callId: 'c1' });
    await s.end();
    expect(content()).toEqual([[undefined, undefined], [undefined, undefined]]);
    const failed = named('guardtrace.attempt')[0]!;
    expect(failed.attributes).toMatchObject({ 'guardtrace.failure.class': 'invalid_arguments', 'guardtrace.decision': 'reject_with_feedback' });
    const guard = childrenOf(failed).find((g) => g.attributes['gen_ai.guardrail.verdict'] === 'fail');
    expect(guard?.attributes['guardtrace.guard.pointers']).toEqual(['/query']);
  });

  it("a tool's own capture overrides the global one", async () => {
    const { gt, content } = setup({ capture: 'none' }, 'all');
    const s = gt.session({ agentName: 'a' });
    await s.callTool('search_files', { query: 'x' });
    await s.end();
    expect(content()).toEqual([['{"query":"x"}', '{"hits":["x.ts"]}']]);
  });

  it("'failures' in instrument-only mode: a recorded failed attempt and the one after it carry their arguments", async () => {
    const { gt, content } = setup({ capture: 'failures', sampling: { cleanSessionRate: 0 } });
    const s = gt.session({ agentName: 'a' });
    s.recordToolCall('search_files', { attempts: [{ args: { query: 'clean' }, outcome: 'success' }] });
    s.recordToolCall('search_files', {
      attempts: [
        { args: { query: 7 }, outcome: 'rejected', failureClass: 'invalid_arguments' },
        { args: { query: 'seven' }, outcome: 'success' },
      ],
    });
    await s.end();
    expect(content()).toEqual([[undefined, undefined], ['{"query":7}', undefined], ['{"query":"seven"}', undefined]]);
  });

  it('writes guardtrace.version once per session, on its root span; every span keeps the conversation id the collector reads', async () => {
    const { gt, spans } = setup({});
    const s = gt.session({ id: 'sess_v', agentName: 'a' });
    await s.callTool('search_files', { query: 'x' });
    await s.end();
    const versioned = spans().filter((x) => 'guardtrace.version' in x.attributes).map((x) => x.name);
    expect(versioned).toEqual(['invoke_agent a']);
    expect(spans().map((x) => x.attributes['gen_ai.conversation.id'])).toEqual(['sess_v', 'sess_v', 'sess_v', 'sess_v']);
  });

  it('rejects an unknown mode with a clear error', () => {
    expect(() => new Guardtrace({ capture: 'some' as CaptureMode })).toThrow("guardtrace: option capture: expected 'all', 'failures' or 'none', got 'some'");
    const gt = new Guardtrace({});
    expect(() => gt.tool({ name: 't', description: 'T', schema: z.object({}), capture: 'errors' as CaptureMode, execute: () => 1 })).toThrow(
      `guardtrace: tool "t": option capture: expected 'all', 'failures' or 'none', got 'errors'`,
    );
  });
});
