/**
 * The package's public face: what each entry imports, what the main entry exports, and that
 * the workspace exports (sources) and the published ones (dist) name the same subpaths.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as semconv from '@guardtrace/semconv';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as sdk from '../src/index.ts';

const PKG = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const pkg = JSON.parse(readFileSync(path.join(PKG, 'package.json'), 'utf8')) as {
  exports: Record<string, string>;
  publishConfig: { exports: Record<string, unknown> };
};

/**
 * Bare specifiers imported by an entry and every relative module it reaches, type-only imports
 * included, and the optional peers those modules load (`optionalPeer<...>('name', ...)`) as `peer:name`.
 */
function externalImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const out = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const { importedFiles } = ts.preProcessFile(text, true, true);
    for (const { fileName } of importedFiles) {
      if (fileName.startsWith('.')) visit(path.resolve(path.dirname(file), fileName));
      else out.add(fileName);
    }
    for (const m of text.matchAll(/\boptionalPeer<[^;]*?>\('([^']+)'/g)) out.add(`peer:${m[1]}`);
  };
  visit(path.join(PKG, entry));
  return out;
}

// Each of these is plain ECMAScript with no Node-only import of its own.
const MAIN_ENTRY_DEPENDENCIES = [
  '@guardtrace/semconv',
  '@guardtrace/semconv/secret-rules',
  '@noble/hashes/sha2.js',
  '@noble/hashes/utils.js',
  '@opentelemetry/api',
  'fastest-levenshtein',
  'safe-stable-stringify',
  'zod',
];
const OTEL_SDK = /^@opentelemetry\/(?!api$)/;

describe('entry points', () => {
  it('the main entry imports nothing Node-only, no parser and no OpenTelemetry SDK, transitively', () => {
    expect([...externalImports(pkg.exports['.']!)].sort()).toEqual(MAIN_ENTRY_DEPENDENCIES);
  });

  it('only ./setup imports the OpenTelemetry SDK packages', () => {
    for (const [sub, file] of Object.entries(pkg.exports)) {
      const otel = [...externalImports(file)].filter((s) => OTEL_SDK.test(s));
      if (sub === './setup') expect(otel.sort()).toEqual(['@opentelemetry/context-async-hooks', '@opentelemetry/exporter-trace-otlp-proto', '@opentelemetry/resources', '@opentelemetry/sdk-trace-base']);
      else if (sub !== './examples/demo-agent') expect(otel, sub).toEqual([]);
    }
  });

  it('the fs, child_process and SQL parser guards are in their own subpaths, their libraries optional peers they load', () => {
    expect([...externalImports(pkg.exports['./guards/files']!)]).toEqual(expect.arrayContaining(['node:fs/promises', 'peer:tinyglobby']));
    expect([...externalImports(pkg.exports['./guards/command']!)]).toContain('node:child_process');
    expect([...externalImports(pkg.exports['./guards/sql']!)]).toContain('peer:node-sql-parser');
    // what a guard subpath alone uses is no dependency of the main install, only an optional peer
    const manifest = pkg as unknown as { dependencies: Record<string, string>; peerDependenciesMeta: Record<string, { optional?: boolean }> };
    for (const peer of ['tinyglobby', 'node-sql-parser']) {
      expect(manifest.dependencies[peer], peer).toBeUndefined();
      expect(manifest.peerDependenciesMeta[peer]?.optional, peer).toBe(true);
    }
    const subpathOnly = (sub: string) => [...externalImports(pkg.exports[sub]!)].filter((s) => !s.startsWith('node:') && !s.startsWith('peer:') && !externalImports(pkg.exports['.']!).has(s));
    for (const sub of ['./guards/files', './guards/command', './guards/sql']) {
      expect(subpathOnly(sub).filter((s) => s in manifest.dependencies), sub).toEqual([]);
    }
  });

  it('each framework integration is a subpath of its own that imports its framework', () => {
    const frameworks = (sub: string) => [...externalImports(pkg.exports[sub]!)].filter((s) => /^(ai|@openai\/agents|@langchain\/|langchain)/.test(s)).sort();
    expect(frameworks('./ai-sdk')).toEqual(['ai']);
    expect(frameworks('./openai-agents')).toEqual(['@openai/agents']);
    expect(frameworks('./langchain')).toEqual(['@langchain/core/messages', '@langchain/core/messages/tool', '@langchain/core/runnables', '@langchain/core/tools', 'langchain']);
  });

  it('publishes the same subpaths the workspace resolves, except the demo agent', () => {
    const published = Object.keys(pkg.publishConfig.exports).filter((k) => k !== './package.json');
    expect(published).toEqual(Object.keys(pkg.exports).filter((k) => k !== './examples/demo-agent'));
  });
});

describe('main entry exports', () => {
  it('re-exports every name of @guardtrace/semconv unchanged', () => {
    for (const [name, value] of Object.entries(semconv)) expect((sdk as Record<string, unknown>)[name], name).toBe(value);
  });

  it('exports only what packages/sdk/README.md documents', () => {
    const readme = readFileSync(path.join(PKG, 'README.md'), 'utf8');
    const own = Object.keys(sdk).filter((name) => !(name in semconv));
    expect(own.length).toBeGreaterThan(5);
    expect(own.filter((name) => !readme.includes(`\`${name}`))).toEqual([]);
  });

  it('keeps the runtime and session internals out of reach', () => {
    const gt = new sdk.Guardtrace({ tracing: false });
    const s = gt.session({ agentName: 'a' });
    expect(Object.keys(gt)).toEqual([]);
    expect(Object.keys(s)).toEqual([]);
    expect('runtime' in gt || 'rt' in s || 'retriesUsed' in s || 'rejectionFingerprints' in s).toBe(false);
  });
});
