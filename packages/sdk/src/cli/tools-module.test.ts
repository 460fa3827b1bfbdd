import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadGuardtrace } from './tools-module.ts';

const TEST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test');
const FIXTURE = 'replay-tools.fixture.ts';
const message = async (p: Promise<unknown>) => p.then(() => 'no error', (err: Error) => err.message);

describe('the tools module', () => {
  it('takes the default export, a function returning the instance, or a promise of it', async () => {
    for (const exportName of [null, 'makeGuardtrace', 'later']) {
      const gt = await loadGuardtrace(FIXTURE, exportName, TEST);
      expect(gt.tools().map((t) => t.name), String(exportName)).toEqual(['read_file', 'write_file']);
    }
  });

  it('says what the export is when it is not a Guardtrace instance, and what is expected', async () => {
    expect(await message(loadGuardtrace(FIXTURE, 'notAnInstance', TEST))).toBe(
      `--tools ${FIXTURE}: the export "notAnInstance" gave an object with keys tools; expected a Guardtrace instance with your tools registered (new Guardtrace() then gt.tool(...)), a function returning one, or a promise of one`,
    );
    expect(await message(loadGuardtrace(FIXTURE, 'broken', TEST))).toBe(`--tools ${FIXTURE}: the export "broken" failed while making the Guardtrace instance: DATABASE_URL is not set`);
    expect(await message(loadGuardtrace(FIXTURE, 'gt', TEST))).toBe(
      `--tools ${FIXTURE}: the module has no export "gt"; its exports are broken, later, makeGuardtrace, notAnInstance, registerTools: pass --export <name>; expected your Guardtrace instance (or a function returning it, or a promise of it)`,
    );
  });

  it('a missing file, a module without a default export, and one that throws while loading', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gt-replay-tools-'));
    expect(await message(loadGuardtrace('nope.mjs', null, dir))).toBe(`--tools nope.mjs: no such file (looked for ${path.join(dir, 'nope.mjs')})`);
    writeFileSync(path.join(dir, 'named.mjs'), 'export const gt = 1;\n');
    expect(await message(loadGuardtrace('named.mjs', null, dir))).toMatch(/^--tools named\.mjs: the module has no default export; its exports are gt: pass --export <name>/);
    writeFileSync(path.join(dir, 'throws.mjs'), 'throw new Error("boom at load");\n');
    expect(await message(loadGuardtrace('throws.mjs', null, dir))).toBe('--tools throws.mjs: the module failed to load: boom at load');
    writeFileSync(path.join(dir, 'number.mjs'), 'export default 42;\n');
    expect(await message(loadGuardtrace('number.mjs', null, dir))).toMatch(/the default export gave a number \(42\); expected a Guardtrace instance/);
  });
});
