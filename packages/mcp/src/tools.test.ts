import { FeedbackRequired, GuardViolation } from '@guardtrace/sdk';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { flagsOf, rpcError, toolError } from './tools.ts';

const tool = (annotations?: Tool['annotations']): Tool => ({ name: 't', inputSchema: { type: 'object' }, ...(annotations ? { annotations } : {}) });
const classOf = (err: Error) => ({ name: err.name, code: (err as { code?: unknown }).code, status: (err as { status?: unknown }).status });

describe('tool annotations as flags', () => {
  it("takes MCP's defaults for missing hints: not read-only, destructive, not idempotent, open world", () => {
    expect(flagsOf(tool())).toEqual({ readOnly: false, destructive: true, idempotent: false, external: true });
  });
  it('maps each hint; read-only implies idempotent and not destructive', () => {
    expect(flagsOf(tool({ readOnlyHint: true, openWorldHint: false }))).toEqual({ readOnly: true, destructive: false, idempotent: true, external: false });
    expect(flagsOf(tool({ destructiveHint: false, idempotentHint: true }))).toEqual({ readOnly: false, destructive: false, idempotent: true, external: true });
  });
  it('lets the config override any flag', () => {
    expect(flagsOf(tool({ readOnlyHint: true }), { readOnly: false, idempotent: false })).toMatchObject({ readOnly: false, idempotent: false });
  });
});

describe('upstream errors as errors the SDK classifies', () => {
  const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }], isError: true });
  it('keeps the meaning of file-system answers', () => {
    expect(classOf(toolError(text("ENOENT: no such file or directory, open '/x'")))).toMatchObject({ code: 'ENOENT' });
    expect(classOf(toolError(text('Access denied - path outside allowed directories')))).toMatchObject({ code: 'EACCES' });
  });
  it('hands anything else to the model as execution feedback, with its text', () => {
    const err = toolError(text('Could not find exact match for edit'));
    expect(err).toBeInstanceOf(FeedbackRequired);
    expect((err as FeedbackRequired).feedback).toBe('Could not find exact match for edit');
    expect(toolError({ content: [], isError: true }).message).toBe('the tool reported an error without text');
  });
  it('maps JSON-RPC errors by what they say about the side effect', () => {
    expect(classOf(rpcError(new McpError(ErrorCode.RequestTimeout, 'slow')))).toMatchObject({ code: 'ETIMEDOUT' });
    expect(classOf(rpcError(new McpError(ErrorCode.ConnectionClosed, 'gone')))).toMatchObject({ code: 'ECONNRESET' });
    expect(classOf(rpcError(new McpError(ErrorCode.InternalError, 'boom')))).toMatchObject({ status: 502 });
    expect(rpcError(new McpError(ErrorCode.InvalidParams, 'bad'))).toBeInstanceOf(GuardViolation);
  });
});
