/**
 * `@guardtrace/sdk/guards/files`: guards that read the file system (Node only).
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { distance } from 'fastest-levenshtein';
import type { FailureClass } from '@guardtrace/semconv';
import { pointersOfValues, pointersTo } from '../pointer.ts';
import type { Guard, GuardFail, GuardOutcome } from '../types.ts';
import { optionalPeer } from './optional-peer.ts';
import { type Loose, type PathsOf, pathsOf, resolveInside } from './paths.ts';

type GlobOptions = { cwd: string; ignore: string[]; onlyFiles: boolean; followSymbolicLinks: boolean };
/** tinyglobby, an optional peer dependency of this subpath (the main install does not pull it). */
const { glob } = optionalPeer<{ glob: (pattern: string, opts: GlobOptions) => Promise<string[]> }>('tinyglobby', '^0.2.17', 'guards/files');

export { resolveInside } from './paths.ts';
export type { PathsOf } from './args.ts';

const IGNORE = ['**/node_modules/**', '**/.git/**'];

/**
 * Path stays inside the workspace root: no `../` escape, no absolute path elsewhere, no symlink
 * out. With `folders` (relative to the root), it must also be inside one of them.
 */
export function insideWorkspace<A>(opts: { root: string; paths: PathsOf<A>; folders?: string[]; name?: string }): Guard<A> {
  const name = opts.name ?? 'path_inside_workspace';
  const folders = opts.folders;
  return {
    name,
    // the root is deployment (production and CI mount the workspace in different places)
    options: { paths: opts.paths, folders },
    check(args, ctx) {
      const paths = pathsOf(opts.paths, args, { guard: name, tool: ctx.tool });
      if (!Array.isArray(paths)) return paths;
      for (const p of paths) {
        const abs = p.includes('\0') ? undefined : resolveInside(opts.root, p);
        if (abs === undefined) {
          return {
            pass: false,
            reason: `Path escapes the workspace root: ${p}`,
            feedback: `TOOL CALL REJECTED: Path "${p}" is outside the workspace. Use a path relative to the workspace root, without "..".`,
            failureClass: 'guard_violation',
            pointers: pointersTo(args, p),
          };
        }
        if (folders && !folders.some((f) => resolveInside(path.resolve(opts.root, f), abs) !== undefined)) {
          return {
            pass: false,
            reason: `Path is outside the allowed folders (${folders.join(', ')}): ${p}`,
            feedback: `TOOL CALL REJECTED: Path "${p}" is outside the folders this tool may use: ${folders.join(', ')}. Use a path inside one of them.`,
            failureClass: 'guard_violation',
            pointers: pointersTo(args, p),
          };
        }
      }
      return { pass: true };
    },
  };
}

/** Drops candidates that leave the root through a symlink: the model must not be offered them. */
function inside(root: string, paths: string[]): string[] {
  return paths.filter((p) => resolveInside(root, p) !== undefined);
}

/**
 * Candidate paths for a missing one, bounded: same basename anywhere (the seed's
 * `**\/Button.tsx`), else the closest workspace paths by edit distance.
 */
export async function pathCandidates(root: string, missing: string, limit = 5): Promise<{ pattern: string; paths: string[]; complete: boolean }> {
  const base = path.posix.basename(missing.split(path.sep).join('/'));
  const pattern = `**/${base}`;
  const same = inside(root, await glob(pattern, { cwd: root, ignore: IGNORE, onlyFiles: true, followSymbolicLinks: false }));
  if (same.length > 0) {
    const ranked = same.sort((a, b) => distance(missing, a) - distance(missing, b) || a.localeCompare(b));
    return { pattern, paths: ranked.slice(0, limit), complete: true };
  }
  // 5000 files bounds the work on a big repository; candidates are a hint, not an index
  const found = inside(root, await glob('**/*', { cwd: root, ignore: IGNORE, onlyFiles: true, followSymbolicLinks: false }));
  const all = found.slice(0, 5000);
  const scored = all
    .map((p) => ({ p, d: Math.min(distance(missing, p), distance(base, path.posix.basename(p)) + 1) }))
    .filter((x) => x.d <= Math.max(3, Math.floor(missing.length / 3)))
    .sort((a, b) => a.d - b.d || a.p.localeCompare(b.p));
  return { pattern: 'similar names', paths: scored.slice(0, limit).map((x) => x.p), complete: found.length <= all.length };
}

export function pathNotFoundFeedback(missing: string, pattern: string, candidates: string[]): string {
  if (candidates.length === 0) {
    return `TOOL CALL REJECTED: Path not found: ${missing}\nNo similar paths exist in the workspace. List the directory before choosing a path.`;
  }
  const header = pattern === 'similar names' ? 'Closest existing paths:' : `Available paths matching ${pattern}:`;
  return ['TOOL CALL REJECTED: Path not found.', '', header, ...candidates.map((c) => `- ${c}`), '', 'Retry with one of the valid paths above.'].join('\n');
}

/** File exists, else a bounded list of candidates (enum exhaustion). Class `missing_resource`. */
export function fileExists<A>(opts: { root: string; paths: PathsOf<A>; maxCandidates?: number; name?: string }): Guard<A> {
  const name = opts.name ?? 'file_exists';
  return {
    name,
    options: { paths: opts.paths, maxCandidates: opts.maxCandidates ?? 5 },
    async check(args, ctx): Promise<GuardOutcome> {
      const paths = pathsOf(opts.paths, args, { guard: name, tool: ctx.tool });
      if (!Array.isArray(paths)) return paths;
      for (const p of paths) {
        const abs = resolveInside(opts.root, p);
        const st = abs === undefined ? null : await stat(abs).catch(() => null);
        if (st?.isFile()) continue;
        const { pattern, paths, complete } = await pathCandidates(opts.root, p, opts.maxCandidates ?? 5);
        const pointers = pointersTo(args, p);
        const out: GuardFail = {
          pass: false,
          reason: `File not found: ${p}`,
          feedback: pathNotFoundFeedback(p, pattern, paths),
          failureClass: 'missing_resource',
          candidates: paths,
          pointers,
        };
        // exactly one candidate in a complete search, at exactly one place in the arguments: the
        // one sound correction, which the runtime may apply without a model turn (autoRepair)
        const only = paths[0];
        if (complete && paths.length === 1 && only !== undefined && pointers.length === 1) out.repair = { pointer: pointers[0] as string, from: p, to: only };
        return out;
      }
      return { pass: true };
    },
  };
}

/** Line range valid for the file's current length (1-based, inclusive). */
export function lineRange<A>(opts: {
  root: string;
  path: (args: Loose<A>) => string;
  start: (args: Loose<A>) => number;
  end: (args: Loose<A>) => number;
  failureClass?: FailureClass;
  name?: string;
}): Guard<A> {
  return {
    name: opts.name ?? 'line_range',
    options: { path: opts.path, start: opts.start, end: opts.end, failureClass: opts.failureClass ?? 'invalid_arguments' },
    async check(args): Promise<GuardOutcome> {
      const a = args as Loose<A>;
      const p = opts.path(a);
      const start = opts.start(a);
      const end = opts.end(a);
      const abs = resolveInside(opts.root, p);
      const text = abs === undefined ? undefined : await readFile(abs, 'utf8').catch(() => undefined);
      if (text === undefined) return { pass: true }; // existence is file_exists' job
      const lines = text.length === 0 ? 0 : text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
      if (start >= 1 && end >= start && end <= Math.max(lines, 1)) return { pass: true };
      const why = end < start ? `end line ${end} is before start line ${start}` : `edit targets lines ${start}-${end}`;
      return {
        pass: false,
        reason: `File ${p} has ${lines} lines, ${why}`,
        feedback: `TOOL CALL REJECTED: File ${p} has ${lines} lines, ${why}. Use a range within 1-${lines}; read the file again if your view is stale.`,
        failureClass: opts.failureClass ?? 'invalid_arguments',
        pointers: pointersOfValues(args, end < start ? [start, end] : start < 1 ? [start] : [end]),
      };
    },
  };
}
