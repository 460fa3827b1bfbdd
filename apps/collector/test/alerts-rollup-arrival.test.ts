/**
 * The alerts' per-minute rollup (alert_minutes) when a row arrives before the row that names its
 * tool: a repair turn before the attempt it answers, attempts that name no tool before their tool
 * call. Counted at first under no tool, they move under the right one when it arrives, so the
 * rollup stays what a rebuild from the stored rows gives after every batch (alerts-rollup-support.ts).
 */
import { describe, it } from 'vitest';
import { rollupHarness, rootSpan, sessionId, T0, toolCall, weightOf } from './alerts-rollup-support.ts';
import { failingSession } from './alerts-support.ts';
import { hex } from './helpers.ts';

const { send, project, expectExact } = rollupHarness();

describe('alert_minutes equals its rebuild from the stored rows', () => {
  it('after repair turns stored before the attempts they answer', async () => {
    const p = await project();
    const start = T0 + 40 * 60_000;
    // Two failures of one call, each answered by a repair turn; the second turn names its class
    // itself (as the SDK's do). Each turn reaches the collector before its attempt (a model span
    // exported first: another process, a retried export).
    const s = failingSession({
      startMs: start,
      tool: 'search',
      failures: [
        { cls: 'invalid_arguments', repair: { model: 'gpt-4.1', input: 900, output: 50 } },
        { cls: 'invalid_arguments', repair: { model: 'gpt-4.1-mini', input: 400, output: 20 } },
      ],
    });
    const isTurn = (span: Record<string, unknown>) => String(span.name).startsWith('chat ');
    const turns = s.spans.filter(isTurn);
    const second = turns[1] as { attributes: object[] };
    second.attributes.push({ key: 'guardtrace.repair.failure_class', value: { stringValue: 'invalid_arguments' } });
    await send(p.key, turns);
    await expectExact(p.projectId, 'the repair turns alone');
    const rest = s.spans.filter((span) => !isTurn(span));
    await send(p.key, rest.slice(0, 3));
    await expectExact(p.projectId, 'the first attempt arrives');
    await send(p.key, rest.slice(3));
    await expectExact(p.projectId, 'the rest arrives');
    // Re-sent, nothing moves again.
    await send(p.key, s.spans);
    await expectExact(p.projectId, 'the whole session re-sent');
  });

  it('after attempts that name no tool are stored before the tool call that names it', async () => {
    const p = await project();
    const start = T0 + 50 * 60_000;
    // Two rejections a minute apart, each answered by a repair turn; the first one's correction (the
    // second attempt) fails, so it counts as unfixed at the second's minute. The attempt spans name
    // no tool: the execute_tool span, which ends after them, does.
    const s = failingSession({
      startMs: start,
      tool: 'search',
      gapMs: 61_000,
      failures: [
        { cls: 'invalid_arguments', repair: { model: 'gpt-4.1', input: 900, output: 50 } },
        { cls: 'invalid_arguments', repair: { model: 'gpt-4.1-mini', input: 400, output: 20 } },
      ],
    });
    const [root, call, ...rest] = s.spans as Record<string, unknown>[];
    await send(p.key, rest.slice(0, 2));
    await expectExact(p.projectId, 'the first attempt and its repair turn');
    await send(p.key, rest.slice(2));
    await expectExact(p.projectId, 'the other attempts: the first rejection is unfixed');
    await send(p.key, [root, call] as Record<string, unknown>[]);
    await expectExact(p.projectId, 'the tool call arrives');
    await send(p.key, s.spans);
    await expectExact(p.projectId, 'the whole session re-sent');
    // A clean session the rate keeps: its attempts counted at weight 1 under no tool, then its call
    // and its root (weight 4) in one batch: under the call's tool, at 4.
    const kept = sessionId('kept', true);
    const t = hex(16);
    const r = hex(8);
    const [keptCall, ...keptAttempts] = toolCall(t, r, kept, start + 200_000, 'search', ['success']);
    await send(p.key, keptAttempts);
    await expectExact(p.projectId, 'a kept session: its attempts alone');
    await send(p.key, [keptCall as Record<string, unknown>, rootSpan(t, r, kept, start + 199_000, weightOf(kept, true))]);
    await expectExact(p.projectId, 'a kept session: its call and its root');
  });
});
