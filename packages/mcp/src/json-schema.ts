/**
 * Schema checks from an MCP tool's JSON Schema `inputSchema`, with ajv: the validator runs
 * inside a zod schema the SDK's schema guard parses, and each ajv error becomes a zod issue
 * at the field's path, so the feedback the model gets is the SDK's own (field path, expected
 * type, allowed values, what was sent, contract excerpt).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { z } from 'zod';

type JsonObject = Record<string, unknown>;

// ajv-formats is CommonJS with a default export: ESM gets the function itself, a bundler may wrap it
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/** allErrors: the model fixes every field in one turn; strict off: upstream schemas carry keywords ajv does not know; verbose: errors carry their schema (the expected type of a missing field). */
const OPTIONS = { allErrors: true, strict: false, validateSchema: false, verbose: true } as const;
let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

/** MCP says a schema without `$schema` is JSON Schema 2020-12; older drafts name themselves. */
function ajvFor(schema: JsonObject): Ajv {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (/draft-0[4-7]/.test(dialect)) {
    draft07 ??= addFormats(new Ajv(OPTIONS));
    return draft07;
  }
  draft2020 ??= addFormats(new Ajv2020(OPTIONS)) as Ajv2020;
  return draft2020;
}

function pointerPath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((seg) => (/^\d+$/.test(seg) ? Number(seg) : seg));
}

function expectedType(e: ErrorObject): string {
  const t = (e.params as { type?: string | string[] }).type;
  return Array.isArray(t) ? t.join(' | ') : String(t);
}

/** The schema of the property `name` under `parent` (for the expected type of a missing field). */
function propertySchema(parent: unknown, name: string): JsonObject | undefined {
  const props = (parent as { properties?: Record<string, JsonObject> } | undefined)?.properties;
  return props?.[name];
}

type Issue = Parameters<z.core.$RefinementCtx['addIssue']>[0];

function issueOf(e: ErrorObject, input: unknown): Issue {
  const path = pointerPath(e.instancePath);
  switch (e.keyword) {
    case 'required': {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      const prop = propertySchema(e.parentSchema, missing);
      const expected = typeof prop?.type === 'string' ? prop.type : 'a value';
      return { code: 'invalid_type', expected: expected as 'string', path: [...path, missing], input: undefined, message: `missing required field "${missing}"` };
    }
    case 'type':
      return { code: 'invalid_type', expected: expectedType(e) as 'string', path, input, message: e.message ?? 'wrong type' };
    case 'enum':
      return { code: 'invalid_value', values: (e.params as { allowedValues: unknown[] }).allowedValues as never[], path, input, message: e.message ?? 'not allowed' };
    case 'const':
      return { code: 'invalid_value', values: [(e.params as { allowedValue: unknown }).allowedValue] as never[], path, input, message: e.message ?? 'not allowed' };
    case 'additionalProperties':
      return { code: 'unrecognized_keys', keys: [(e.params as { additionalProperty: string }).additionalProperty], path, input: input as Record<string, unknown>, message: 'unexpected field' };
    default:
      return { code: 'custom', path, input, message: e.message ?? `fails "${e.keyword}"` };
  }
}

/** What the contract excerpt shows: the schema's object shape, without keywords zod's JSON Schema output owns. */
function contractMeta(schema: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of ['type', 'properties', 'required', 'description'] as const) if (schema[k] !== undefined) out[k] = schema[k];
  return out;
}

/**
 * The schema with unknown top-level arguments refused, as the SDK refuses them for zod tools:
 * many servers' schemas leave `additionalProperties` open and then drop what they do not
 * know, so a misspelt optional argument would vanish silently. A schema that says what to do
 * with other keys itself is left alone.
 */
function closed(schema: JsonObject): JsonObject {
  const open = ['additionalProperties', 'patternProperties', 'unevaluatedProperties', 'allOf', 'anyOf', 'oneOf', '$ref'].some((k) => schema[k] !== undefined);
  if (open || schema.type !== 'object' || typeof schema.properties !== 'object') return schema;
  return { ...schema, additionalProperties: false };
}

/** Errors of one failed validation, for a caller outside zod (tests, diagnostics). */
export interface CompiledSchema {
  /** The zod schema handed to `gt.tool({ schema })`. */
  zod: z.ZodType;
  /** Why the schema could not be compiled (the upstream server still validates): undefined when it was. */
  compileError?: string;
}

/**
 * Compiles a tool's `inputSchema`. A schema ajv cannot compile (an unresolvable `$ref`, ...)
 * lets every argument through to the upstream server, which validates it itself, and says why.
 */
export function compileInputSchema(schema: JsonObject, opts: { unknownArguments?: 'reject' | 'pass' } = {}): CompiledSchema {
  let validate: ValidateFunction;
  try {
    validate = ajvFor(schema).compile(opts.unknownArguments === 'pass' ? schema : closed(schema));
  } catch (err) {
    return { zod: z.unknown(), compileError: err instanceof Error ? err.message : String(err) };
  }
  const zod = z
    .unknown()
    .superRefine((value, ctx) => {
      if (validate(value)) return;
      for (const e of validate.errors ?? []) {
        // oneOf/anyOf report every branch's errors and then their own: the branches explain more
        if (e.keyword === 'if') continue;
        ctx.addIssue(issueOf(e, value));
      }
    })
    .meta(contractMeta(schema));
  return { zod };
}
