/** The runnable example does what its README section says (no collector: guards only). */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { PKG } from './helpers.ts';

it('examples/filesystem.ts: each scripted call gets the answer the README describes', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(PKG, 'examples/filesystem.ts')], {
    cwd: PKG,
    encoding: 'utf8',
    env: { ...process.env, GUARDTRACE_ENDPOINT: '', GUARDTRACE_API_KEY: '', OTEL_EXPORTER_OTLP_ENDPOINT: '' },
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  const heads = r.stdout.split('\n').filter((l) => l.startsWith('## '));
  expect(heads).toEqual([
    '## read a file: ok',
    '## wrong argument type: rejected (invalid_arguments, reject_with_feedback)',
    '## hallucinated tool, one close match: ok',
    '## hallucinated tool, no close match: rejected (unknown_tool, reject_with_feedback)',
    '## outside the roots: rejected (guard_violation, replan)',
    '## precondition: rejected (guard_violation, replan)',
    '## missing file: rejected (missing_resource, replan)',
    '## destructive move: ok',
    '## the same move again (answered from the idempotency store): ok',
  ]);
  expect(r.stdout).toContain('- Field "head": expected number, received string ("5")');
  // corrected in code, and the client is told so
  expect(r.stdout).toContain('- called `read_file`; `read_file_contents` does not exist');
  expect(r.stdout).toContain('Unknown tool "summarize_repo"');
  expect(r.stderr).not.toContain('upstream server exited');
});
