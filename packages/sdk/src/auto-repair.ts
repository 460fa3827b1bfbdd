/**
 * Repair in code, without a model turn, for mistakes with exactly one sound correction:
 * - an argument name the schema does not have, whose one close schema field is absent (and the
 *   renamed arguments validate);
 * - an unknown tool name with exactly one close registered tool whose schema the arguments satisfy;
 * - a path the files guard resolves to exactly one candidate (`GuardFail.repair`).
 * The failed attempt is recorded with decision `auto_repair` and the corrected call runs as the
 * call's next attempt (tool-call.ts); the result carries what was corrected, for the model.
 */
import type { Span } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GUARDTRACE_AUTO_REPAIR_KIND,
  ATTR_GUARDTRACE_AUTO_REPAIR_POINTERS,
  ATTR_GUARDTRACE_AUTO_REPAIR_TOOL,
  ATTR_GUARDTRACE_DECISION,
  ATTR_GUARDTRACE_FAILURE_CLASS,
  ATTR_GUARDTRACE_FEEDBACK,
  ATTR_GUARDTRACE_OUTCOME,
  type AutoRepairKind,
} from '@guardtrace/semconv';
import { distance } from 'fastest-levenshtein';
import { z } from 'zod';
import type { AttemptRun } from './attempt-state.ts';
import { closeGuardSpan } from './guard-span.ts';
import { toPointer } from './pointer.ts';
import type { RegisteredTool, Runtime } from './runtime.ts';
import { sanitizeFeedback } from './sanitize.ts';
import { checkSchema } from './schema-guard.ts';
import { clip } from './span-text.ts';
import type { AttemptRecord, AutoRepairSetting, CallResult, Correction } from './types.ts';

/** The correction to apply before the next attempt. */
export interface AutoRepairPlan {
  correction: Correction;
  /** The arguments the next attempt runs with. */
  rawArgs: unknown;
  /** The tool the next attempt calls (a tool-name repair). */
  tool?: string;
}

const SETTING_KEY: Record<AutoRepairKind, 'argumentNames' | 'toolNames' | 'paths'> = {
  argument_name: 'argumentNames',
  tool_name: 'toolNames',
  path: 'paths',
};

function settingFor(s: AutoRepairSetting | undefined, kind: AutoRepairKind): boolean | undefined {
  if (s === undefined || typeof s === 'boolean') return s;
  return s[SETTING_KEY[kind]];
}

/**
 * Whether `tool` may run with a correction of this kind: the tool's own `autoRepair` decides
 * when it says (the only way in for a tool that is neither read-only nor idempotent); else
 * the global setting, for read-only and idempotent tools only.
 */
function autoRepairEnabled(rt: Runtime, tool: RegisteredTool, kind: AutoRepairKind): boolean {
  const own = settingFor(tool.autoRepair, kind);
  if (own !== undefined) return own;
  if (!(tool.flags?.readOnly || tool.flags?.idempotent)) return false;
  return settingFor(rt.autoRepair, kind) ?? true;
}

/** Lower-case words of a name (snake_case, kebab-case, camelCase), 3 letters or more. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3);
}

/**
 * How close two names are, strongest first: 0 a typo apart (edit distance at most 2, or a third
 * of the shorter name), 1 one inside the other (`filepath` / `path`), 2 a shared word
 * (`search_codebase` / `search_files`); undefined when none.
 */
function closeness(a: string, b: string): number | undefined {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (distance(x, y) <= Math.max(2, Math.floor(Math.min(x.length, y.length) / 3))) return 0;
  if (Math.min(x.length, y.length) >= 3 && (x.includes(y) || y.includes(x))) return 1;
  const wa = new Set(words(a));
  return words(b).some((w) => wa.has(w)) ? 2 : undefined;
}

/**
 * The one candidate closest to `name` that `accept`s, or undefined: candidates are taken at the
 * strongest closeness any of them has, and two there mean no sound correction.
 */
function soleClosest<T>(name: string, candidates: readonly T[], nameOf: (c: T) => string, accept: (c: T) => boolean): T | undefined {
  let best: T[] = [];
  let bestTier = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const tier = closeness(name, nameOf(c));
    if (tier === undefined || tier > bestTier || !accept(c)) continue;
    if (tier < bestTier) {
      best = [];
      bestTier = tier;
    }
    best.push(c);
  }
  return best.length === 1 ? best[0] : undefined;
}

/** The arguments as an object (JSON text parsed), or undefined when they are not one. */
function argsObject(raw: unknown): Record<string, unknown> | undefined {
  let v = raw;
  if (typeof raw === 'string') {
    try {
      v = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      return undefined;
    }
  }
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** Top-level argument names: a zod object's keys, else the `properties` of the schema's JSON Schema metadata (the MCP proxy's). */
function fieldNames(schema: z.ZodType): string[] | undefined {
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  const props = (schema.meta() as { properties?: unknown } | undefined)?.properties;
  return props !== null && typeof props === 'object' && !Array.isArray(props) ? Object.keys(props) : undefined;
}

function argumentNames(rt: Runtime, tool: RegisteredTool, run: AttemptRun): AutoRepairPlan | undefined {
  const failed = run.guards.at(-1);
  if (failed?.name !== 'schema' || failed.stage !== 'schema') return undefined;
  const fields = fieldNames(tool.schema);
  if (!fields || !autoRepairEnabled(rt, tool, 'argument_name')) return undefined;
  const args = argsObject(run.rawArgs);
  if (!args) return undefined;
  const absent = fields.filter((f) => !(f in args));
  const renames = new Map<string, string>();
  for (const key of Object.keys(args)) {
    if (fields.includes(key)) continue;
    const field = soleClosest(key, absent, (f) => f, () => true);
    if (field === undefined) return undefined;
    renames.set(key, field);
  }
  const targets = new Set(renames.values());
  if (renames.size === 0 || targets.size !== renames.size) return undefined;
  const repaired: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) repaired[renames.get(k) ?? k] = v;
  if (!checkSchema(tool, repaired).ok) return undefined;
  const pairs = [...renames];
  const text = pairs.map(([from, to]) => `used argument \`${to}\` for \`${from}\`; ${tool.name} has no argument \`${from}\``).join('; ');
  return {
    rawArgs: repaired,
    correction: { kind: 'argument_name', from: pairs.map((p) => p[0]).join(', '), to: pairs.map((p) => p[1]).join(', '), pointers: [...targets].map((t) => toPointer([t])), text },
  };
}

function toolName(rt: Runtime, name: string, run: AttemptRun): AutoRepairPlan | undefined {
  const only = soleClosest(name, [...rt.tools.values()], (t) => t.name, (t) => checkSchema(t, run.rawArgs).ok);
  if (!only || !autoRepairEnabled(rt, only, 'tool_name')) return undefined;
  return {
    rawArgs: run.rawArgs,
    tool: only.name,
    correction: { kind: 'tool_name', from: name, to: only.name, pointers: [], text: `called \`${only.name}\`; \`${name}\` does not exist` },
  };
}

/** Sets the value at a JSON pointer of a copy of `args`; undefined when it is not `from` there. */
function replaced(args: Record<string, unknown>, pointer: string, from: string, to: string): Record<string, unknown> | undefined {
  const keys = pointer.split('/').slice(1).map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (keys.length === 0) return undefined;
  const copy = structuredClone(args);
  let node: unknown = copy;
  for (const k of keys.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[k];
  }
  const last = keys.at(-1) as string;
  if (node === null || typeof node !== 'object' || (node as Record<string, unknown>)[last] !== from) return undefined;
  (node as Record<string, unknown>)[last] = to;
  return copy;
}

function path(rt: Runtime, tool: RegisteredTool, run: AttemptRun): AutoRepairPlan | undefined {
  const r = run.repair;
  if (!r || !autoRepairEnabled(rt, tool, 'path')) return undefined;
  const args = argsObject(run.rawArgs);
  const repaired = args && replaced(args, r.pointer, r.from, r.to);
  if (!repaired) return undefined;
  return {
    rawArgs: repaired,
    correction: { kind: 'path', from: r.from, to: r.to, pointers: [r.pointer], text: `used path \`${r.to}\`; \`${r.from}\` does not exist` },
  };
}

/**
 * The one sound correction of a rejected attempt, when there is one and the tool allows it;
 * otherwise undefined and the rejection goes to the model as usual.
 */
export function planAutoRepair(rt: Runtime, tool: RegisteredTool | undefined, name: string, run: AttemptRun): AutoRepairPlan | undefined {
  if (run.ok || run.stage !== 'pre') return undefined;
  if (run.failureClass === 'unknown_tool') return tool ? undefined : toolName(rt, name, run);
  if (!tool) return undefined;
  if (run.failureClass === 'invalid_arguments') return argumentNames(rt, tool, run);
  if (run.failureClass === 'missing_resource') return path(rt, tool, run);
  return undefined;
}

/**
 * Records the attempt that was repaired in code: its span gets decision `auto_repair`, the kind,
 * the pointers after the repair and the tool the call runs as (the failing guard's span keeps
 * the pointers before); the span ends as a failed attempt. The record goes in the call's history.
 */
export function recordAutoRepair(
  rt: Runtime,
  run: AttemptRun,
  fix: AutoRepairPlan,
  a: { span: Span; n: number; tool: string; callId: string; args: string; durationMs: number },
): AttemptRecord {
  const failureClass = run.failureClass ?? 'guard_violation';
  const c = { ...fix.correction, text: sanitizeFeedback(fix.correction.text, rt.sanitize) };
  const record: AttemptRecord = {
    attempt: a.n, tool: a.tool, callId: a.callId, args: a.args, outcome: 'rejected', failureClass, decision: 'auto_repair',
    feedback: c.text, guards: run.guards, durationMs: a.durationMs, spanId: rt.telemetry.spanId(a.span), correction: c,
  };
  if (run.errorType) record.errorType = run.errorType;
  closeGuardSpan(rt, run.failingGuard, 'auto_repair');
  rt.telemetry.set(a.span, {
    [ATTR_GUARDTRACE_OUTCOME]: 'rejected',
    [ATTR_GUARDTRACE_FAILURE_CLASS]: failureClass,
    [ATTR_GUARDTRACE_DECISION]: 'auto_repair',
    [ATTR_GUARDTRACE_FEEDBACK]: clip(c.text),
    [ATTR_ERROR_TYPE]: run.errorType ?? failureClass,
    [ATTR_GUARDTRACE_AUTO_REPAIR_KIND]: c.kind,
    [ATTR_GUARDTRACE_AUTO_REPAIR_POINTERS]: c.pointers.length > 0 ? c.pointers : undefined,
    [ATTR_GUARDTRACE_AUTO_REPAIR_TOOL]: fix.tool,
  });
  rt.telemetry.end(a.span, { error: failureClass });
  return record;
}

/** The tool an unknown name would be auto-repaired to, if any (for adapters that route the call first). */
export function autoRepairedToolName(rt: Runtime, name: string, rawArgs: unknown): string | undefined {
  if (rt.tools.has(name)) return undefined;
  return toolName(rt, name, { ok: false, rawArgs, parsed: false, guards: [], stage: 'pre', failureClass: 'unknown_tool' })?.tool;
}

/**
 * What the model is told of the corrections, before the tool's result:
 *
 * ```text
 * Corrected and ran (use the corrected call next time):
 * - called `search_files`; `search_codebase` does not exist
 * ```
 */
export function correctionNote(r: CallResult): string | undefined {
  const c = r.corrections;
  if (!c || c.length === 0) return undefined;
  return ['Corrected and ran (use the corrected call next time):', ...c.map((x) => `- ${x.text}`)].join('\n');
}
