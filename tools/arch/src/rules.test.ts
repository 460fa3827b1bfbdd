import { getAvailableTranspilers, type ICruiseResult, type IModule } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';
import { cruiseWithRules, describeViolations, ROOT } from './cruise.ts';

// The real cruise of the repository with .dependency-cruiser.cjs. It fails on any violation,
// and it checks that the cruise saw the workspace, so that no rule can pass because there
// was nothing to look at (a folder moved, a resolver that stops at the pnpm symlinks, ...).

/** The workspace part a path belongs to: `apps/web`, `packages/db`, `e2e`, ... or undefined. */
function partOf(source: string): string | undefined {
  return /^((?:apps|packages|tools)\/[^/]+|e2e|scripts)\//.exec(source)?.[1];
}

let result: ICruiseResult;
beforeAll(async () => {
  result = await cruiseWithRules(ROOT);
}, 120_000);

describe('architecture rules (dependency-cruiser) over the repository', () => {
  it('reads TypeScript with the TypeScript compiler, so type-only imports count', () => {
    expect(getAvailableTranspilers().find((t) => t.name === 'typescript')?.available).toBe(true);
    expect(result.summary.optionsUsed.tsPreCompilationDeps).toBe(true);
  });

  it('finds no violation', () => {
    expect(describeViolations(result)).toEqual([]);
    expect(result.summary.error).toBe(0);
  });

  it('saw every part of the workspace', () => {
    // Floors well below today's counts (web 61, sdk 59, collector 48, db 22 modules, ...).
    const minimum: Record<string, number> = {
      'apps/web': 40,
      'apps/collector': 30,
      'packages/sdk': 30,
      'packages/db': 8,
      'packages/semconv': 3,
      'tools/prisma-migrate': 2,
      'tools/arch': 2,
      e2e: 3,
      scripts: 3,
    };
    const seen: Record<string, number> = {};
    for (const m of result.modules) {
      const part = partOf(m.source);
      if (part) seen[part] = (seen[part] ?? 0) + 1;
    }
    for (const [part, floor] of Object.entries(minimum)) {
      expect(seen[part] ?? 0, `modules cruised in ${part}`).toBeGreaterThanOrEqual(floor);
    }
  });

  it('followed the workspace packages through their pnpm symlinks to the real source', () => {
    // Edges by package name (`@guardtrace/x`), resolved to a real path in packages/x/src.
    const edges = new Set<string>();
    for (const m of result.modules as IModule[]) {
      const from = partOf(m.source);
      for (const d of m.dependencies) {
        const to = partOf(d.resolved);
        if (from && to && from !== to && d.module.startsWith('@guardtrace/') && !d.couldNotResolve) {
          edges.add(`${from} -> ${to}`);
        }
      }
    }
    expect([...edges]).toEqual(
      expect.arrayContaining([
        'apps/collector -> packages/db',
        'apps/collector -> packages/semconv',
        'apps/web -> packages/db',
        'apps/web -> packages/semconv',
        'packages/sdk -> packages/semconv',
        'e2e -> packages/sdk',
        'scripts -> packages/db',
      ]),
    );
  });

  it('counted type-only imports and resolved every import', () => {
    const deps = result.modules.flatMap((m) => m.dependencies);
    expect(deps.filter((d) => d.dependencyTypes.includes('type-only')).length).toBeGreaterThan(20);
    expect(deps.filter((d) => d.couldNotResolve).map((d) => d.module)).toEqual([]);
  });
});
