// Type-checked (never run) under moduleResolution node16 (as ESM) and bundler.
import { type CallResult, type FailureClass, Guardtrace, type Session, idempotencyKey } from '@guardtrace/sdk';
import { CommandGate } from '@guardtrace/sdk/guards/command';
import { insideWorkspace } from '@guardtrace/sdk/guards/files';
import { sqlHeuristics } from '@guardtrace/sdk/guards/sql';
import { guardtraceExporter, guardtraceSpanProcessor, setupGuardtrace } from '@guardtrace/sdk/setup';
import { ATTR_GUARDTRACE_DECISION, type Decision } from '@guardtrace/semconv';
import { z } from 'zod';

const gt = new Guardtrace({ tracer: setupGuardtrace({ endpoint: 'http://127.0.0.1:4318', apiKey: 'k', serviceName: 's' }).tracer });
gt.tool({
  name: 'run_sql',
  description: 'Run a query',
  schema: z.object({ sql: z.string(), path: z.string() }),
  guards: [sqlHeuristics({ sql: (a) => a.sql }), insideWorkspace({ root: '.', paths: (a) => a.path })],
  execute: (a) => a.sql.length,
});
const s: Session = gt.session({ agentName: 'typed' });
export const result: Promise<CallResult> = s.callTool('run_sql', { sql: 'select 1', path: 'a.sql' });
export const processor = guardtraceSpanProcessor({ endpoint: 'http://x', apiKey: 'k' });
export const exporter = guardtraceExporter({ endpoint: 'http://x', apiKey: 'k' });
export const gate = new CommandGate({ command: 'tsc', cwd: '.' });
export const key: string = idempotencyKey('run_sql', { sql: 'select 1' });
export const decisionKey: 'guardtrace.decision' = ATTR_GUARDTRACE_DECISION;
export const cls: FailureClass = 'transient';
export const decision: Decision = 'replan';
// @ts-expect-error not a failure class: the types are real, not `any`
export const wrong: FailureClass = 'not_a_class';
// @ts-expect-error internals are not part of the public types
export const rt = gt.runtime;
