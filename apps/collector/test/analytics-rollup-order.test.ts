/**
 * The analytics rollup (analytics_daily) kept in the collector's write transaction
 * (analytics-rollup.test.ts) stays equal to a recomputation from the derived rows over a long
 * session sent in many batches in any order, and when two collectors write the same sessions at
 * once. The partitions are made for the helpers' fixed dates, so nothing depends on the day the
 * test runs.
 */
import { describe, expect, it } from 'vitest';
import { analyticsRollupSuite, TEMPLATE } from './analytics-rollup-support.ts';
import { type Env, hex, random, sdkSession } from './helpers.ts';

let env: Env;
const { post, expectConsistent } = analyticsRollupSuite((e) => {
  env = e;
});

describe('analytics rollup in the write transaction', () => {
  it('stays equal to the recomputation over a long session sent in many batches, in any order', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const sessionId = `sess_${hex(6)}`;
    // 30 turns of one session, each its own trace; their 240 spans shuffled and sent in 24
    // batches, so attempts come before or after their tool call, a fix before or after the
    // rejection it fixes and a repair turn before or after the attempt it repairs. Every batch
    // after the first updates the stored session by the rows it can change (listed), not whole.
    const turns = Array.from({ length: 30 }, () => sdkSession({ sessionId }));
    const rnd = random(13);
    const spans = turns.flatMap((t) => t.spans);
    for (let i = spans.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [spans[i], spans[j]] = [spans[j] as Record<string, unknown>, spans[i] as Record<string, unknown>];
    }
    for (let i = 0; i < spans.length; i += 10) {
      await post(spans.slice(i, i + 10), key);
      if (i % 60 === 0) await expectConsistent(projectId);
    }
    // A re-send of a few batches' spans changes nothing.
    await post(spans.slice(0, 40), key);
    const stored = await expectConsistent(projectId);
    expect(stored.get(`2026-11-30|write_file|invalid_arguments|${TEMPLATE}`)).toEqual({
      attempts: 30,
      weighted: 30,
      failed: 30,
      rejections: 30,
      fixed: 30,
      exhausted: 0,
      sessions: 1,
      tokens: 30 * 4280,
    });
    const parts = await env.sql.query('SELECT row_count FROM analytics_session_parts WHERE project_id = $1 ORDER BY row_count', [projectId]);
    // Under the rejection's key: 30 attempts and 30 repair turns; under the success's: 30 attempts.
    expect(parts.rows.map((r) => r.row_count)).toEqual([30, 60]);
  });

  it('stays equal to the recomputation when two collectors write the same sessions at once', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const sessions = Array.from({ length: 6 }, () => sdkSession());
    // Each session split in two halves, each half sent to both collectors, all at once.
    const posts = sessions.flatMap((s) => {
      const half = Math.ceil(s.spans.length / 2);
      const parts = [s.spans.slice(0, half), s.spans.slice(half)];
      return parts.flatMap((part) => [post(part, key, 0), post(part, key, 1)]);
    });
    await Promise.all(posts);
    const stored = await expectConsistent(projectId);
    expect(stored.get(`2026-11-30|write_file|invalid_arguments|${TEMPLATE}`)).toMatchObject({
      attempts: 6,
      rejections: 6,
      fixed: 6,
      sessions: 6,
      tokens: 6 * 4280,
    });
  });
});
