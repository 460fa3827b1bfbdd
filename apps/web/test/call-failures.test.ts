import { describe, expect, it } from 'vitest';
import { diffAttempts } from '@/lib/call-failures';
import { pointerVerdicts } from '@/lib/json-diff';
import type { AttemptDto, ToolCallStepDto } from '@/server/queries/session-types';

const attempt = (n: number, toolName: string | null, args: string, failureClass: string | null, pointers: string[] = []): AttemptDto =>
  ({
    spanId: `a${n}`,
    number: n,
    toolName,
    arguments: { text: args, chars: args.length },
    failureClass,
    outcome: failureClass ? 'failure' : 'success',
    guardChecks: failureClass ? [{ verdict: 'fail', failedPointers: pointers }] : [{ verdict: 'pass', failedPointers: [] }],
  }) as unknown as AttemptDto;

const call = (attempts: AttemptDto[]): ToolCallStepDto => ({ toolName: 'search_files', attempts }) as unknown as ToolCallStepDto;

describe('diffAttempts', () => {
  it('diffs a call whose attempts name one tool by its arguments and their pointers', () => {
    const d = diffAttempts(call([attempt(1, null, '{"filepath":"a"}', 'invalid_arguments', ['/filepath']), attempt(2, null, '{"path":"a"}', null)]));
    expect(d.map((x) => [x.args, x.failedPointers, x.passed])).toEqual([
      [{ filepath: 'a' }, ['/filepath'], false],
      [{ path: 'a' }, [], true],
    ]);
  });

  it('diffs a hallucinated tool corrected to a real one as the calls the model made: the tool name is the failed field', () => {
    const d = diffAttempts(
      call([attempt(1, 'search_codebase', '{"query":"Button.tsx"}', 'unknown_tool'), attempt(2, 'search_files', '{"name":"Button.tsx"}', null)]),
    );
    expect(d[0]).toMatchObject({ args: { tool: 'search_codebase', arguments: { query: 'Button.tsx' } }, failedPointers: ['/tool'] });
    expect(d[1]).toMatchObject({ args: { tool: 'search_files', arguments: { name: 'Button.tsx' } }, failedPointers: [], passed: true });
    // The verdict on the failed field: the tool name changed and the next attempt passed.
    const [before, after] = d as [(typeof d)[0], (typeof d)[0]];
    expect(pointerVerdicts(before, after).map((v) => [v.pointer, v.verdict])).toEqual([['/tool', 'fixed']]);
  });

  it('keeps argument pointers under /arguments when the tools differ', () => {
    const d = diffAttempts(call([attempt(1, 'write', '{"p":1}', 'invalid_arguments', ['/p']), attempt(2, 'write_file', '{"p":2}', null)]));
    expect(d[0]?.failedPointers).toEqual(['/arguments/p']);
  });
});
