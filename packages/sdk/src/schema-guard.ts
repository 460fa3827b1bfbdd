import { closest } from 'fastest-levenshtein';
import { z } from 'zod';
import { MAX_POINTERS, toPointer } from './pointer.ts';

/** The tool-facing part of the schema guard. */
export interface SchemaGuardInput {
  name: string;
  schema: z.ZodType;
  unknownKeys?: 'reject' | 'strip';
}

export type SchemaCheck =
  | { ok: true; data: unknown }
  | { ok: false; reason: string; feedback: string; pointers: string[] };

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  description?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  pattern?: string;
};

/** Zod strips unknown keys by default; the guard rejects them instead (a renamed parameter must not vanish). */
function strictOf(schema: z.ZodType, unknownKeys: 'reject' | 'strip'): z.ZodType {
  // a schema that says what to do with unknown keys itself (looseObject, catchall) is left alone
  if (unknownKeys === 'reject' && schema instanceof z.ZodObject && schema._zod.def.catchall === undefined) return schema.strict();
  return schema;
}

const strictCache = new WeakMap<z.ZodType, z.ZodType>();
const contractCache = new WeakMap<z.ZodType, string>();

function describeType(js: JsonSchema | undefined): string {
  if (!js) return 'any';
  if (js.enum) return `one of ${js.enum.map((v) => JSON.stringify(v)).join(' | ')}`;
  if (js.const !== undefined) return JSON.stringify(js.const);
  const alts = js.anyOf ?? js.oneOf;
  if (alts) return alts.map(describeType).join(' | ');
  const type = Array.isArray(js.type) ? js.type.join(' | ') : (js.type ?? 'any');
  const parts = [type === 'array' ? `array of ${describeType(js.items)}` : type];
  if (js.format) parts.push(`format ${js.format}`);
  if (js.minLength !== undefined) parts.push(`min length ${js.minLength}`);
  if (js.maxLength !== undefined) parts.push(`max length ${js.maxLength}`);
  // zod's int() adds the safe-integer range: noise for the model, so only real bounds are shown
  if (js.minimum !== undefined && Math.abs(js.minimum) < Number.MAX_SAFE_INTEGER) parts.push(`>= ${js.minimum}`);
  if (js.maximum !== undefined && Math.abs(js.maximum) < Number.MAX_SAFE_INTEGER) parts.push(`<= ${js.maximum}`);
  if (js.pattern) parts.push(`matching /${js.pattern}/`);
  return parts.join(', ');
}

/** The contract excerpt shown to the model: one line per field, type, required/optional, default. */
export function contractExcerpt(schema: z.ZodType): string {
  const cached = contractCache.get(schema);
  if (cached !== undefined) return cached;
  let text: string;
  try {
    const js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    if (js.properties) {
      const required = new Set(js.required ?? []);
      const lines = Object.entries(js.properties).map(([key, prop]) => {
        const flags = required.has(key) ? 'required' : prop.default !== undefined ? `optional, default ${JSON.stringify(prop.default)}` : 'optional';
        return `  ${JSON.stringify(key)}: ${JSON.stringify(`${describeType(prop)} (${flags})`)}`;
      });
      text = `{\n${lines.join(',\n')}\n}`;
    } else {
      text = describeType(js);
    }
  } catch {
    text = '(schema not representable as JSON)';
  }
  contractCache.set(schema, text);
  return text;
}

function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur = root;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && Number.isInteger(v)) return 'integer';
  return typeof v;
}

/** What the model sent, short: `string ("644")`. */
function received(v: unknown): string {
  if (v === undefined) return 'nothing';
  let json: string;
  try {
    json = JSON.stringify(v) ?? String(v);
  } catch {
    json = String(v);
  }
  if (json.length > 80) json = `${json.slice(0, 77)}...`;
  return `${typeName(v)} (${json})`;
}

function issueLine(issue: z.core.$ZodIssue, raw: unknown, shapeKeys: string[]): string {
  const path = pathText(issue.path);
  const where = path === '' ? 'Arguments' : `Field "${path}"`;
  const got = valueAt(raw, issue.path);
  switch (issue.code) {
    case 'invalid_type':
      if (got === undefined && issue.path.length > 0) return `- Missing required field: "${path}" (expected ${issue.expected})`;
      return `- ${where}: expected ${issue.expected}, received ${received(got)}`;
    case 'unrecognized_keys':
      return issue.keys
        .map((k) => {
          const fieldPath = path === '' ? k : `${path}.${k}`;
          const guess = shapeKeys.length > 0 ? closest(k, shapeKeys) : undefined;
          return `- Unexpected field: "${fieldPath}"${guess ? ` (did you mean "${guess}"?)` : ''}`;
        })
        .join('\n');
    case 'invalid_value':
      return `- ${where}: expected one of ${issue.values.map((v) => JSON.stringify(v)).join(' | ')}, received ${received(got)}`;
    case 'invalid_format':
      return `- ${where}: expected ${issue.format} format, received ${received(got)}`;
    case 'invalid_union':
      return `- ${where}: matches none of the allowed shapes, received ${received(got)}`;
    default:
      return `- ${where}: ${issue.message}, received ${received(got)}`;
  }
}

/** One pointer per field at fault: the issue's path, or each unexpected key under it. */
function issuePointers(issues: readonly z.core.$ZodIssue[]): string[] {
  const out = new Set<string>();
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') for (const k of issue.keys) out.add(toPointer([...issue.path, k]));
    else out.add(toPointer(issue.path));
  }
  return [...out].slice(0, MAX_POINTERS);
}

function shapeKeysOf(schema: z.ZodType): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** Parses raw arguments (JSON text or object) against the tool's schema; never coerces. */
export function checkSchema(tool: SchemaGuardInput, rawArgs: unknown): SchemaCheck {
  let raw = rawArgs;
  if (typeof rawArgs === 'string') {
    try {
      raw = rawArgs.trim() === '' ? {} : JSON.parse(rawArgs);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      const sent = rawArgs.length > 200 ? `${rawArgs.slice(0, 197)}...` : rawArgs;
      return {
        ok: false,
        reason: `Arguments are not valid JSON: ${why}`,
        feedback: `Validation error in ${tool.name} call:\n- Arguments are not valid JSON: ${why}\n- You provided: ${sent}\n\nExpected schema:\n${contractExcerpt(tool.schema)}\n\nSend the arguments as one JSON object.`,
        pointers: [''],
      };
    }
  }
  const mode = tool.unknownKeys ?? 'reject';
  let strict = mode === 'strip' ? tool.schema : strictCache.get(tool.schema);
  if (!strict) {
    strict = strictOf(tool.schema, mode);
    strictCache.set(tool.schema, strict);
  }
  const parsed = strict.safeParse(raw);
  if (parsed.success) return { ok: true, data: parsed.data };
  const keys = shapeKeysOf(tool.schema);
  const lines = parsed.error.issues.map((i) => issueLine(i, raw, keys));
  const first = lines[0]?.replace(/^- /, '') ?? 'invalid arguments';
  const feedback = [
    `Validation error in ${tool.name} call:`,
    ...lines,
    `- You provided: ${safeJson(raw)}`,
    '',
    'Expected schema:',
    contractExcerpt(tool.schema),
  ].join('\n');
  return { ok: false, reason: first.split('\n')[0] ?? first, feedback, pointers: issuePointers(parsed.error.issues) };
}

function safeJson(v: unknown): string {
  try {
    const s = JSON.stringify(v) ?? String(v);
    return s.length > 300 ? `${s.slice(0, 297)}...` : s;
  } catch {
    return String(v);
  }
}
