/**
 * What changed between two tool definitions, as lines a person reads in a replay report:
 * `schema: field "path" renamed? removed "path", added "file"`,
 * `guard path_inside_workspace: option folders changed ["src","docs"] → ["src"]`,
 * `flag readOnly added`, `policy maxAttempts changed 3 → 5`.
 */
import type { ToolDefinitionSummary } from '@guardtrace/semconv';
import { stringify } from 'safe-stable-stringify';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown): string => (v === undefined ? 'unset' : (stringify(v) ?? 'null'));
const same = (a: unknown, b: unknown): boolean => stringify(a) === stringify(b);

/** A JSON Schema field: its type (or the types of its union), whether it is required, and the rest. */
interface Field {
  type: string;
  required: boolean;
  schema: Json;
}

function typeOf(s: Json): string {
  if (Array.isArray(s.enum)) return `enum ${show(s.enum)}`;
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) return s.type.join(' | ');
  if ('const' in s) return `const ${show(s.const)}`;
  for (const k of ['anyOf', 'oneOf']) {
    const alts = s[k];
    if (Array.isArray(alts)) return alts.map((a) => (isObj(a) ? typeOf(a) : '?')).join(' | ');
  }
  return 'any';
}

/** Fields by dotted path (`filter.limit`, `items[].qty`), nested objects and array items included. */
function fields(schema: unknown, prefix = '', out = new Map<string, Field>()): Map<string, Field> {
  if (!isObj(schema)) return out;
  const props = schema.properties;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  if (isObj(props)) {
    for (const [k, v] of Object.entries(props)) {
      if (!isObj(v)) continue;
      const name = prefix ? `${prefix}.${k}` : k;
      out.set(name, { type: typeOf(v), required: required.has(k), schema: v });
      fields(v, name, out);
    }
  }
  if (isObj(schema.items)) fields(schema.items, `${prefix}[]`, out);
  return out;
}

const parentOf = (name: string): string => name.slice(0, Math.max(0, name.lastIndexOf('.')));
const leaf = (name: string): string => name.slice(name.lastIndexOf('.') + 1);

function schemaChanges(a: unknown, b: unknown): string[] {
  if (same(a, b)) return [];
  const fa = fields(a);
  const fb = fields(b);
  const out: string[] = [];
  const removed = [...fa.keys()].filter((k) => !fb.has(k));
  const added = [...fb.keys()].filter((k) => !fa.has(k));
  // a field removed and one added beside it, of the same type: most likely a rename
  const paired = new Set<string>();
  for (const r of removed) {
    const ra = fa.get(r) as Field;
    const match = added.find((x) => !paired.has(x) && parentOf(x) === parentOf(r) && fb.get(x)?.type === ra.type);
    if (match === undefined) continue;
    paired.add(match).add(r);
    out.push(`schema: field "${r}" renamed? removed "${leaf(r)}", added "${leaf(match)}"`);
  }
  for (const r of removed) if (!paired.has(r)) out.push(`schema: field "${r}" removed`);
  for (const x of added) {
    if (paired.has(x)) continue;
    const f = fb.get(x) as Field;
    out.push(`schema: field "${x}" added (${f.type}${f.required ? ', required' : ', optional'})`);
  }
  for (const [k, fa1] of fa) {
    const fb1 = fb.get(k);
    if (!fb1) continue;
    if (fa1.type !== fb1.type) out.push(`schema: field "${k}" type changed ${fa1.type} → ${fb1.type}`);
    if (fa1.required !== fb1.required) out.push(`schema: field "${k}" ${fb1.required ? 'now required' : 'no longer required'}`);
    if (fa1.type === fb1.type) {
      // constraints of the field itself (its nested fields are lines of their own)
      const own = (s: Json): Json => {
        const { properties: _p, items: _i, required: _r, ...rest } = s;
        return rest;
      };
      const oa = own(fa1.schema);
      const ob = own(fb1.schema);
      for (const key of new Set([...Object.keys(oa), ...Object.keys(ob)])) {
        if (key === 'type' || same(oa[key], ob[key])) continue;
        out.push(`schema: field "${k}" ${key} changed ${show(oa[key])} → ${show(ob[key])}`);
      }
    }
  }
  if (isObj(a) && isObj(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (['properties', 'required', 'items', '$schema'].includes(key) || same(a[key], b[key])) continue;
      out.push(`schema: ${key} changed ${show(a[key])} → ${show(b[key])}`);
    }
  }
  return out.length > 0 ? out : ['schema: changed'];
}

type GuardSummary = ToolDefinitionSummary['guards'][number];

/** Guards keyed by name (and occurrence, when a tool has two of the same name). */
function keyed(guards: readonly GuardSummary[]): Map<string, GuardSummary> {
  const seen = new Map<string, number>();
  const out = new Map<string, GuardSummary>();
  for (const g of guards) {
    const n = (seen.get(g.name) ?? 0) + 1;
    seen.set(g.name, n);
    out.set(n === 1 ? g.name : `${g.name} #${n}`, g);
  }
  return out;
}

function guardChanges(a: readonly GuardSummary[], b: readonly GuardSummary[]): string[] {
  if (same(a, b)) return [];
  const ka = keyed(a);
  const kb = keyed(b);
  const out: string[] = [];
  for (const [k, g] of ka) {
    const h = kb.get(k);
    if (!h) {
      out.push(`guard ${k} removed`);
      continue;
    }
    if (g.stage !== h.stage) out.push(`guard ${k}: stage changed ${g.stage} → ${h.stage}`);
    const oa = isObj(g.options) ? g.options : { options: g.options };
    const ob = isObj(h.options) ? h.options : { options: h.options };
    for (const key of new Set([...Object.keys(oa), ...Object.keys(ob)])) {
      if (same(oa[key], ob[key])) continue;
      if (oa[key] === undefined) out.push(`guard ${k}: option ${key} added ${show(ob[key])}`);
      else if (ob[key] === undefined) out.push(`guard ${k}: option ${key} removed (was ${show(oa[key])})`);
      else out.push(`guard ${k}: option ${key} changed ${show(oa[key])} → ${show(ob[key])}`);
    }
  }
  for (const [k, h] of kb) if (!ka.has(k)) out.push(`guard ${k} added${h.options === undefined ? '' : ` ${show(h.options)}`}`);
  const orderA = [...ka.keys()].filter((k) => kb.has(k));
  const orderB = [...kb.keys()].filter((k) => ka.has(k));
  if (!same(orderA, orderB)) out.push(`guards: order changed ${show(orderA)} → ${show(orderB)}`);
  return out;
}

function flagChanges(a: Record<string, boolean>, b: Record<string, boolean>): string[] {
  const out: string[] = [];
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (Boolean(a[k]) === Boolean(b[k])) continue;
    out.push(`flag ${k} ${b[k] ? 'added' : 'removed'}`);
  }
  return out;
}

/** Leaves of a JSON value by dotted path (arrays whole). */
function leaves(v: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (isObj(v) && Object.keys(v).length > 0) {
    for (const [k, x] of Object.entries(v)) leaves(x, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) out.set(prefix, v);
  return out;
}

function policyChanges(a: unknown, b: unknown): string[] {
  if (same(a, b)) return [];
  const la = leaves(a);
  const lb = leaves(b);
  const out: string[] = [];
  for (const k of new Set([...la.keys(), ...lb.keys()])) {
    const x = la.get(k);
    const y = lb.get(k);
    if (same(x, y)) continue;
    if (!la.has(k)) out.push(`policy ${k} added ${show(y)}`);
    else if (!lb.has(k)) out.push(`policy ${k} removed (was ${show(x)})`);
    else out.push(`policy ${k} changed ${show(x)} → ${show(y)}`);
  }
  return out;
}

/**
 * The readable changes from the `recorded` definition to the `current` one: schema fields
 * added, removed, renamed-looking, type or required changed; guards added, removed, option
 * changed (old → new); flags; policy. Empty when they are the same.
 */
export function diffDefinitions(recorded: ToolDefinitionSummary, current: ToolDefinitionSummary): string[] {
  const out: string[] = [];
  if (recorded.tool !== current.tool) out.push(`tool renamed ${recorded.tool} → ${current.tool}`);
  out.push(...schemaChanges(recorded.schema, current.schema));
  out.push(...guardChanges(recorded.guards ?? [], current.guards ?? []));
  out.push(...flagChanges(recorded.flags ?? {}, current.flags ?? {}));
  out.push(...policyChanges(recorded.policy ?? {}, current.policy ?? {}));
  return out;
}
