/**
 * A tool definition's fingerprint: its JSON Schema, its guards with their options, its flags and
 * its policy, as a readable summary (`ToolDefinitionSummary`) and a 16-hex hash of its canonical
 * JSON. Every `execute_tool` span carries the hash, so a recorded call says under which definition
 * it was decided; a replay diffs the summaries when the hashes differ (definition-diff.ts).
 * No Node imports: part of the main entry.
 */
import type { ToolDefinitionSummary } from '@guardtrace/semconv';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { stringify } from 'safe-stable-stringify';
import { z } from 'zod';
import { DEFAULT_POLICY, mergePolicy } from './policy.ts';
import type { PolicyTable, ToolSpec } from './types.ts';

export type { ToolDefinitionSummary } from '@guardtrace/semconv';

/** A tool definition's fingerprint: `hash` (16 lowercase hex characters) of the canonical `summary`. */
export interface ToolDefinition {
  hash: string;
  summary: ToolDefinitionSummary;
  /** The summary as JSON (the `guardtrace.tool.definition` attribute). */
  json: string;
}

const FLAGS = ['readOnly', 'idempotent', 'destructive', 'external'] as const;

/**
 * A value in a stable, JSON-safe form: functions as `fn:<name>` (never their source text, which
 * a build changes), regular expressions as `re:/source/flags`, Maps and Sets as arrays, cycles
 * cut, `undefined` left out. Key order is made canonical by the hash's serializer.
 */
function jsonSafe(v: unknown, seen: Set<object> = new Set()): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'function') return `fn:${v.name || 'anonymous'}`;
  if (typeof v === 'symbol') return v.toString();
  if (typeof v !== 'object') return undefined;
  if (v instanceof RegExp) return `re:${v.toString()}`;
  if (v instanceof Date) return v.toISOString();
  if (seen.has(v)) return '[circular]';
  seen.add(v);
  try {
    if (Array.isArray(v)) return v.map((x) => jsonSafe(x, seen) ?? null);
    if (v instanceof Set) return [...v].map((x) => jsonSafe(x, seen) ?? null);
    if (v instanceof Map) return [...v].map(([k, x]) => [jsonSafe(k, seen) ?? null, jsonSafe(x, seen) ?? null]);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const s = jsonSafe(x, seen);
      if (s !== undefined) out[k] = s;
    }
    return out;
  } finally {
    seen.delete(v);
  }
}

/** `required` lists sorted: the order fields are declared in does not change what the schema accepts. */
function sortRequired(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortRequired);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    out[k] = k === 'required' && Array.isArray(x) && x.every((r) => typeof r === 'string') ? [...x].sort() : sortRequired(x);
  }
  return out;
}

/** The arguments' JSON Schema, as the SDK hands it to models (ai-sdk.ts, messages.ts) and the schema guard reads it. */
function jsonSchemaOf(schema: z.ZodType): unknown {
  try {
    return sortRequired(jsonSafe(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })));
  } catch (err) {
    return { unrepresentable: err instanceof Error ? err.message : String(err) };
  }
}

/** What of a merged policy table differs from the defaults, per class. */
function policyChanges(table: PolicyTable): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [cls, p] of Object.entries(table)) {
    const base = (DEFAULT_POLICY as unknown as Record<string, Record<string, unknown> | undefined>)[cls] ?? {};
    for (const [k, v] of Object.entries(p as unknown as Record<string, unknown>)) {
      if (v === undefined || base[k] === v) continue;
      out[cls] ??= {};
      (out[cls] as Record<string, unknown>)[k] = jsonSafe(v);
    }
  }
  return out;
}

function policyOf(spec: ToolSpec & { mergedPolicy?: PolicyTable }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const classes = policyChanges(spec.mergedPolicy ?? mergePolicy(DEFAULT_POLICY, spec.policy));
  if (Object.keys(classes).length > 0) out.classes = classes;
  const extra: Record<string, unknown> = {
    maxAttempts: spec.maxAttempts,
    timeoutMs: spec.timeoutMs,
    fallbackTool: spec.fallbackTool,
    unknownKeys: spec.unknownKeys,
    autoRepair: spec.autoRepair,
    discover: spec.discover ? { tool: spec.discover.tool, args: spec.discover.args } : undefined,
    idempotencyArgs: spec.idempotencyArgs,
    reconcile: spec.reconcile,
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) out[k] = jsonSafe(v);
  return out;
}

/** The readable summary of a tool's definition. */
function definitionSummary(spec: ToolSpec & { mergedPolicy?: PolicyTable }): ToolDefinitionSummary {
  const flags: Record<string, boolean> = {};
  for (const f of FLAGS) if (spec.flags?.[f]) flags[f] = true;
  return {
    tool: spec.name,
    schema: jsonSchemaOf(spec.schema),
    guards: (spec.guards ?? []).map((g) => {
      const o = g.options === undefined ? undefined : jsonSafe(g.options);
      return o === undefined ? { name: g.name, stage: g.stage ?? 'logical' } : { name: g.name, stage: g.stage ?? 'logical', options: o };
    }),
    flags,
    policy: policyOf(spec),
  };
}

/** 16 hex characters: the first 64 bits of the SHA-256 of the summary's canonical JSON. */
function definitionHash(summary: ToolDefinitionSummary): string {
  return bytesToHex(sha256(utf8ToBytes(stringify(summary) ?? 'null'))).slice(0, 16);
}

/** Computed once per tool object (a registered tool is one object for its lifetime). */
const cache = new WeakMap<object, ToolDefinition>();

/**
 * The fingerprint of a tool definition (a `ToolSpec` or a registered tool): stable across
 * processes and key order; functions count by name only. Cached per tool object.
 */
export function toolDefinition(spec: ToolSpec): { hash: string; summary: ToolDefinitionSummary } {
  const d = definitionOf(spec);
  return { hash: d.hash, summary: d.summary };
}

/** @internal With the summary's JSON, for the span attribute. */
export function definitionOf(spec: ToolSpec): ToolDefinition {
  let d = cache.get(spec);
  if (!d) {
    const summary = definitionSummary(spec);
    d = { hash: definitionHash(summary), summary, json: stringify(summary) ?? 'null' };
    cache.set(spec, d);
  }
  return d;
}
