/**
 * Loads the user's tools module: its default export (or the named one) is their Guardtrace
 * instance, a function returning it, or a promise of it. The instance is recognised by its
 * methods, not `instanceof`: a CommonJS module gets the SDK's .cjs build, whose class is not the
 * one this bin imports.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Guardtrace } from '../guardtrace.ts';
import { InputError } from './ndjson.ts';

const describe = (v: unknown): string => {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') {
    const name = (v as object).constructor?.name;
    return name && name !== 'Object' ? `an instance of ${name}` : `an object with keys ${Object.keys(v).slice(0, 5).join(', ') || '(none)'}`;
  }
  return typeof v === 'function' ? 'a function' : `a ${typeof v} (${String(v).slice(0, 40)})`;
};

const isGuardtrace = (v: unknown): v is Guardtrace =>
  typeof v === 'object' && v !== null && ['tool', 'tools', 'getTool', 'session'].every((m) => typeof (v as Record<string, unknown>)[m] === 'function');

export async function loadGuardtrace(file: string, exportName: string | null, cwd: string): Promise<Guardtrace> {
  const abs = path.resolve(cwd, file);
  if (!existsSync(abs)) throw new InputError(`--tools ${file}: no such file (looked for ${abs})`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const hint =
      e.code === 'ERR_UNKNOWN_FILE_EXTENSION'
        ? ': Node cannot load this file type by itself: point --tools at the compiled .js/.mjs, or run the bin under a loader (node --import tsx node_modules/.bin/guardtrace-replay ...)'
        : '';
    throw new InputError(`--tools ${file}: the module failed to load: ${e.message}${hint}`);
  }
  const which = exportName ? `export "${exportName}"` : 'default export';
  if (exportName ? !(exportName in mod) : mod.default === undefined) {
    const names = Object.keys(mod).filter((k) => k !== 'default' && k !== 'module.exports').sort();
    throw new InputError(
      `--tools ${file}: the module has no ${which}${names.length ? `; its exports are ${names.join(', ')}: pass --export <name>` : ''}; expected your Guardtrace instance (or a function returning it, or a promise of it)`,
    );
  }
  let value = mod[exportName ?? 'default'];
  try {
    if (typeof value === 'function') value = await (value as () => unknown)();
    else value = await value;
  } catch (err) {
    throw new InputError(`--tools ${file}: the ${which} failed while making the Guardtrace instance: ${(err as Error).message ?? String(err)}`);
  }
  if (!isGuardtrace(value)) {
    throw new InputError(
      `--tools ${file}: the ${which} gave ${describe(value)}; expected a Guardtrace instance with your tools registered (new Guardtrace() then gt.tool(...)), a function returning one, or a promise of one`,
    );
  }
  return value;
}
