import { describe, expect, it } from 'vitest';
import type { Attributes, NormSpan, SpanEvent } from '../span.ts';
import { testSpan } from '../test-span.ts';
import { eventChecks } from './guardrail.ts';
import { interpret } from './index.ts';

const span = (name: string, attributes: Attributes, more: Partial<NormSpan> = {}): NormSpan => testSpan(name, attributes, { kind: 3, ...more });

const result = (attributes: Attributes, time = '5000000'): SpanEvent => ({ timeUnixNano: time, name: 'gen_ai.guardrail.result', attributes });
const guardrail = (attrs: Attributes, events: SpanEvent[] = [], statusCode = 0) =>
  interpret(span(`apply_guardrail ${attrs['gen_ai.guardrail.component.name'] ?? ''}`.trim(), { 'gen_ai.operation.name': 'apply_guardrail', ...attrs }, { events, statusCode }));

describe('the merged GenAI guardrail convention', () => {
  it("keeps Amazon Bedrock Guardrails' native values and derives fail from GUARDRAIL_INTERVENED (the convention's example)", () => {
    const m = guardrail({
      'gen_ai.provider.name': 'aws.bedrock',
      'gen_ai.guardrail.component.name': 'Amazon Bedrock Guardrails',
      'gen_ai.guardrail.policy.id': 'gr-abc123',
      'gen_ai.guardrail.policy.version': 'DRAFT',
      'gen_ai.guardrail.source': 'INPUT',
      'gen_ai.guardrail.result.type': 'action',
      'gen_ai.guardrail.result.value': 'GUARDRAIL_INTERVENED',
      'gen_ai.guardrail.result.reason': 'Guardrail policy blocked the requested topic',
      'guardtrace.guard.pointers': ['/path'],
    });
    expect(m).toMatchObject({ role: 'guard_check', guardName: 'Amazon Bedrock Guardrails', verdict: 'fail', reason: 'Guardrail policy blocked the requested topic', failedPointers: ['/path'] });
    expect(m?.guardrailResults).toEqual([
      {
        component: 'Amazon Bedrock Guardrails',
        provider: 'aws.bedrock',
        policyId: 'gr-abc123',
        policyVersion: 'DRAFT',
        source: 'INPUT',
        type: 'action',
        value: 'GUARDRAIL_INTERVENED',
        reason: 'Guardrail policy blocked the requested topic',
      },
    ]);
  });

  it('derives pass or fail by the table alone, one row per provider', () => {
    const verdict = (type: string, value: string | boolean) => guardrail({ 'gen_ai.guardrail.result.type': type, 'gen_ai.guardrail.result.value': value })?.verdict;
    // Amazon Bedrock Guardrails: `action`.
    expect(verdict('action', 'GUARDRAIL_INTERVENED')).toBe('fail');
    expect(verdict('action', 'NONE')).toBe('pass');
    expect(verdict('action', 'BLOCKED')).toBe('unknown');
    // OpenAI Agents: `tripwire_triggered`, as a string or a boolean.
    expect(verdict('tripwire_triggered', 'true')).toBe('fail');
    expect(verdict('tripwire_triggered', true)).toBe('fail');
    expect(verdict('tripwire_triggered', 'false')).toBe('pass');
    // Azure OpenAI content filter: `filtered`.
    expect(verdict('filtered', 'true')).toBe('fail');
    expect(verdict('filtered', 'false')).toBe('pass');
    // Azure AI Content Safety: a severity is a score, never a verdict; nor is Model Armor's match state.
    expect(verdict('severity', '6')).toBe('unknown');
    expect(verdict('severity', '0')).toBe('unknown');
    expect(verdict('filter_match_state', 'MATCH_FOUND')).toBe('unknown');
    // Guardtrace's own guards.
    expect(verdict('verdict', 'fail')).toBe('fail');
    expect(verdict('verdict', 'pass')).toBe('pass');
  });

  it('leaves a guardrail with no explicit pass/fail value not derived, whatever its status, and keeps its risks', () => {
    // The convention's Azure AI Content Safety example: one result event per category.
    const events = [
      result({ 'gen_ai.guardrail.result.type': 'severity', 'gen_ai.guardrail.result.value': '0', 'gen_ai.guardrail.risk.category': 'Hate', 'gen_ai.guardrail.risk.score': 0 }),
      result({ 'gen_ai.guardrail.result.type': 'severity', 'gen_ai.guardrail.result.value': '6', 'gen_ai.guardrail.risk.category': 'Violence', 'gen_ai.guardrail.risk.score': 6 }),
    ];
    const attrs = { 'gen_ai.provider.name': 'azure.ai.content_safety', 'gen_ai.guardrail.component.name': 'Azure AI Content Safety' };
    const m = guardrail(attrs, events);
    expect(m).toMatchObject({ guardName: 'Azure AI Content Safety', verdict: 'unknown', reason: null });
    expect(m?.guardrailResults).toEqual([
      { component: 'Azure AI Content Safety', provider: 'azure.ai.content_safety', type: 'severity', value: '0', riskCategory: 'Hate', riskScore: 0 },
      { component: 'Azure AI Content Safety', provider: 'azure.ai.content_safety', type: 'severity', value: '6', riskCategory: 'Violence', riskScore: 6 },
    ]);
    expect(guardrail(attrs, events, 2)?.verdict).toBe('unknown');
    // A span with only a reason: still nothing to derive from.
    expect(guardrail({ 'gen_ai.guardrail.result.reason': 'Prompt attack detected' })).toMatchObject({ verdict: 'unknown', reason: 'Prompt attack detected' });
  });

  it('fails a check when any result derives fail, and takes the pointer from a result event', () => {
    const m = guardrail({ 'gen_ai.guardrail.component.name': 'schema' }, [
      result({ 'gen_ai.guardrail.result.type': 'severity', 'gen_ai.guardrail.result.value': '2' }),
      result({ 'gen_ai.guardrail.result.type': 'tripwire_triggered', 'gen_ai.guardrail.result.value': 'true', 'gen_ai.guardrail.result.reason': 'path escapes the workspace', 'guardtrace.guard.pointers': '/path' }),
    ]);
    expect(m).toMatchObject({ guardName: 'schema', verdict: 'fail', reason: 'path escapes the workspace', failedPointers: ['/path'] });
  });

  it("does not store Guardtrace's own result twice: its columns say it", () => {
    const m = guardrail({ 'gen_ai.guardrail.name': 'file_exists', 'gen_ai.guardrail.verdict': 'fail', 'gen_ai.guardrail.reason': 'File not found: a.ts' }, [
      result({ 'gen_ai.guardrail.component.name': 'file_exists', 'gen_ai.guardrail.result.type': 'verdict', 'gen_ai.guardrail.result.value': 'fail', 'gen_ai.guardrail.result.reason': 'File not found: a.ts' }),
    ]);
    expect(m).toMatchObject({ guardName: 'file_exists', verdict: 'fail', reason: 'File not found: a.ts', guardrailResults: null });
  });

  it('keeps reading the older proposals beside it', () => {
    expect(guardrail({ 'gen_ai.guardrail.verdict.type': 'deny', 'gen_ai.guardrail.verdict.reason': 'email address in input' })).toMatchObject({
      verdict: 'fail',
      reason: 'email address in input',
      guardrailResults: null,
    });
    expect(guardrail({ 'gen_ai.security.decision.type': 'allow' })?.verdict).toBe('pass');
    // Merged results that derive nothing leave the older decision to decide.
    expect(guardrail({ 'gen_ai.guardrail.result.type': 'severity', 'gen_ai.guardrail.result.value': '4', 'gen_ai.guardrail.decision': 'deny' })?.verdict).toBe('fail');
  });
});

describe('guardrail result events on a span that is no guardrail', () => {
  it("become one check per component under that span (OpenAI Agents' tool-input guardrails)", () => {
    const tool = span('execute_tool write_file', { 'gen_ai.operation.name': 'execute_tool' }, {
      events: [
        result({ 'gen_ai.guardrail.component.name': 'no_secrets', 'gen_ai.guardrail.source': 'tool_input', 'gen_ai.guardrail.result.type': 'tripwire_triggered', 'gen_ai.guardrail.result.value': 'true', 'gen_ai.guardrail.result.reason': 'secret in arguments', 'guardtrace.guard.pointers': ['/content'] }, '7000000'),
        { timeUnixNano: '7100000', name: 'exception', attributes: {} },
        result({ 'gen_ai.guardrail.component.name': 'path_guard', 'gen_ai.guardrail.source': 'tool_input', 'gen_ai.guardrail.result.type': 'tripwire_triggered', 'gen_ai.guardrail.result.value': 'false' }, '7200000'),
        result({ 'gen_ai.guardrail.result.type': 'severity', 'gen_ai.guardrail.result.value': '4' }, '7300000'),
      ],
    });
    const checks = eventChecks(tool);
    expect(checks?.map(({ spanId: _, ...c }) => c)).toEqual([
      {
        guardName: 'no_secrets',
        verdict: 'fail',
        reason: 'secret in arguments',
        results: [{ component: 'no_secrets', source: 'tool_input', type: 'tripwire_triggered', value: 'true', reason: 'secret in arguments' }],
        pointers: ['/content'],
        timeNs: 7_000_000n,
      },
      { guardName: 'path_guard', verdict: 'pass', reason: null, results: [{ component: 'path_guard', source: 'tool_input', type: 'tripwire_triggered', value: 'false' }], pointers: null, timeNs: 7_200_000n },
      { guardName: 'guardrail', verdict: 'unknown', reason: null, results: [{ type: 'severity', value: '4' }], pointers: null, timeNs: 7_300_000n },
    ]);
    // Stable, distinct ids: a resent export writes the same rows.
    const ids = checks?.map((c) => c.spanId) ?? [];
    expect(new Set(ids).size).toBe(3);
    expect(ids.every((id) => /^[0-9a-f]{16}$/.test(id))).toBe(true);
    expect(eventChecks(tool)?.map((c) => c.spanId)).toEqual(ids);
  });

  it('are none for a span without result events', () => {
    expect(eventChecks(span('execute_tool t', {}))).toBeNull();
    expect(eventChecks(span('execute_tool t', {}, { events: [{ timeUnixNano: '1', name: 'exception', attributes: {} }] }))).toBeNull();
  });
});
