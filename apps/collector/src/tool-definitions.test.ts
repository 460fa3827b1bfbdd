import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NormSpan } from './span.ts';
import { testSpan } from './test-span.ts';
import { rememberDefinitions, spanDefinition } from './tool-definitions.ts';

const span = (summary: string): NormSpan =>
  testSpan('execute_tool read_file', { 'gen_ai.tool.name': 'read_file', 'guardtrace.tool.definition.hash': 'abcdefabcdef0123', 'guardtrace.tool.definition': summary });

afterEach(() => {
  vi.useRealTimers();
});

describe('a tool definition the process stored', () => {
  it('is not written again for a while, then is (a row deleted meanwhile comes back)', () => {
    vi.useFakeTimers();
    const project = randomUUID();
    const s = span(JSON.stringify({ tool: 'read_file', schema: {}, guards: [], flags: {}, policy: {} }));
    const row = spanDefinition(project, s, '2026-12-01T00:00:00Z');
    expect(row).toMatchObject({ projectId: project, hash: 'abcdefabcdef0123', tool: 'read_file' });
    rememberDefinitions([row as NonNullable<typeof row>]);
    expect(spanDefinition(project, s, '2026-12-01T00:00:01Z')).toBeNull();
    // another project's same hash is its own definition
    expect(spanDefinition(randomUUID(), s, '2026-12-01T00:00:01Z')).not.toBeNull();
    vi.advanceTimersByTime(11 * 60_000);
    expect(spanDefinition(project, s, '2026-12-01T00:11:01Z')).not.toBeNull();
  });

  it('takes the tool name from the summary, else from the span, and skips what is no JSON object', () => {
    const project = randomUUID();
    expect(spanDefinition(project, span(JSON.stringify({ schema: {} })), 't')?.tool).toBe('read_file');
    expect(spanDefinition(project, span('[1,2]'), 't')).toBeNull();
    expect(spanDefinition(project, span('{"tool":'), 't')).toBeNull();
  });
});
