import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { traced } from '../../test/helpers.ts';
import { fileExists, insideWorkspace, lineRange } from './files.ts';
import { predicate, resourceLock } from './generic.ts';
import type { Guard } from '../types.ts';

const root = mkdtempSync(path.join(tmpdir(), 'gt-files-'));
for (const f of ['src/components/Button.tsx', 'src/ui/Button.tsx', 'src/api/routes.ts', 'config/app.yaml']) {
  mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
  writeFileSync(path.join(root, f), 'line 1\nline 2\nline 3\n');
}
symlinkSync(tmpdir(), path.join(root, 'escape'));

const ctx = { tool: 't', sessionId: 's', callId: 'c', attempt: 1, idempotencyKey: 'k', holder: 's/c', locks: { acquire: () => ({ ok: true as const }), release: () => {} } };

describe('insideWorkspace', () => {
  it('rejects ../ escapes, absolute paths elsewhere and symlinks out of the root', async () => {
    const g = insideWorkspace<{ path: string }>({ root, paths: (a) => a.path });
    expect((await g.check({ path: 'src/api/routes.ts' }, ctx)).pass).toBe(true);
    expect((await g.check({ path: 'src/new/file.ts' }, ctx)).pass).toBe(true);
    for (const bad of ['../../etc/passwd', '/etc/passwd', 'src/../../x', 'escape/anything']) {
      const r = await g.check({ path: bad }, ctx);
      expect(r.pass, bad).toBe(false);
      if (!r.pass) expect(r.feedback).toContain('is outside the workspace');
    }
  });

  it('with folders, confines paths to those folders of the root (prefix lookalikes and ../ out of them too)', async () => {
    const g = insideWorkspace<{ path: string }>({ root, paths: (a) => a.path, folders: ['src/api', 'config'] });
    for (const ok of ['src/api/routes.ts', 'config/app.yaml', 'src/api/new.ts']) expect((await g.check({ path: ok }, ctx)).pass, ok).toBe(true);
    for (const bad of ['src/ui/Button.tsx', 'src/api-old/x.ts', 'config/../src/ui/Button.tsx', 'README.md']) {
      const r = await g.check({ path: bad }, ctx);
      expect(r.pass, bad).toBe(false);
      if (!r.pass) {
        expect(r.feedback).toBe(`TOOL CALL REJECTED: Path "${bad}" is outside the folders this tool may use: src/api, config. Use a path inside one of them.`);
        expect(r.pointers).toEqual(['/path']);
      }
    }
  });
});

describe('path callbacks', () => {
  type ReadArgs = { path: string };
  it('are typed by the arguments when the guard knows them', () => {
    insideWorkspace<ReadArgs>({ root, paths: (a) => a.path });
    // @ts-expect-error: misspelt field of the tool's arguments
    insideWorkspace<ReadArgs>({ root, paths: (a) => a.pth });
    // the type flows in from where the guard is used, too
    const g: Guard<ReadArgs> = fileExists({ root, paths: (a) => a.path });
    // @ts-expect-error: misspelt field of the tool's arguments
    const bad: Guard<ReadArgs> = fileExists({ root, paths: (a) => a.pth });
    expect([g.name, bad.name]).toEqual(['file_exists', 'file_exists']);
  });

  it('fail closed as a configuration error, naming guard and tool, when they yield no path', async () => {
    const { gt } = traced();
    let ran = 0;
    gt.tool({
      name: 'read_file',
      description: 'read',
      schema: z.object({ path: z.string() }),
      flags: { readOnly: true },
      // inside gt.tool the callback's argument is loose: the misspelt field compiles, and yields undefined
      guards: [insideWorkspace({ root, paths: (a) => a.pth })],
      execute: () => {
        ran += 1;
        return 'secret';
      },
    });
    const s = gt.session({ agentName: 'a' });
    const r = await s.callTool('read_file', { path: '../../etc/passwd' });
    expect(ran).toBe(0);
    expect(r).toMatchObject({ ok: false, failureClass: 'fatal', decision: 'abort' });
    const reason = r.attempts[0]?.guards.at(-1)?.reason;
    expect(reason).toContain('path_inside_workspace');
    expect(reason).toContain('read_file');
    expect(reason).toContain('no path');
    // an explicit empty list is the way to say "this call names no path"
    const none = insideWorkspace<{ path?: string }>({ root, paths: (a) => (a.path === undefined ? [] : a.path) });
    expect((await none.check({}, ctx)).pass).toBe(true);
    const fe = fileExists<{ n: number }>({ root, paths: (a) => (a as unknown as { p: string[] }).p });
    expect(await fe.check({ n: 1 }, ctx)).toMatchObject({ pass: false, failureClass: 'fatal' });
  });
});

describe('fileExists', () => {
  const g = fileExists<{ path: string }>({ root, paths: (a) => a.path });

  it('lists the files with the same basename, as in the seed', async () => {
    const r = await g.check({ path: 'componets/Button.tsx' }, ctx);
    expect(r.pass).toBe(false);
    if (r.pass) return;
    expect(r.failureClass).toBe('missing_resource');
    expect(r.candidates).toEqual(['src/components/Button.tsx', 'src/ui/Button.tsx']);
    expect(r.feedback).toBe(
      'TOOL CALL REJECTED: Path not found.\n\nAvailable paths matching **/Button.tsx:\n- src/components/Button.tsx\n- src/ui/Button.tsx\n\nRetry with one of the valid paths above.',
    );
  });

  it('falls back to the closest paths by edit distance', async () => {
    const r = await g.check({ path: 'src/api/route.ts' }, ctx);
    expect(r.pass).toBe(false);
    if (!r.pass) {
      expect(r.candidates?.[0]).toBe('src/api/routes.ts');
      expect(r.feedback).toContain('Closest existing paths:');
    }
  });

  it('bounds the candidate list', async () => {
    const many = fileExists<{ path: string }>({ root, paths: (a) => a.path, maxCandidates: 1 });
    const r = await many.check({ path: 'Button.tsx' }, ctx);
    expect(!r.pass && r.candidates).toHaveLength(1);
  });
});

describe('lineRange', () => {
  const g = lineRange<{ path: string; start: number; end: number }>({ root, path: (a) => a.path, start: (a) => a.start, end: (a) => a.end });
  it('accepts a range inside the current file and rejects one past its end', async () => {
    expect((await g.check({ path: 'src/api/routes.ts', start: 1, end: 3 }, ctx)).pass).toBe(true);
    const r = await g.check({ path: 'src/api/routes.ts', start: 2, end: 9 }, ctx);
    expect(r.pass).toBe(false);
    if (!r.pass) expect(r.feedback).toContain('File src/api/routes.ts has 3 lines, edit targets lines 2-9');
    const back = await g.check({ path: 'src/api/routes.ts', start: 3, end: 2 }, ctx);
    expect(!back.pass && back.reason).toContain('end line 2 is before start line 3');
  });
});

describe('resourceLock through the runtime', () => {
  it('rejects a second concurrent edit of the same file, naming the holder, and frees the lock afterwards', async () => {
    const { gt } = traced();
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    gt.tool({
      name: 'edit_file',
      description: 'edit',
      schema: z.object({ path: z.string(), text: z.string() }),
      guards: [resourceLock({ resource: (a) => a.path })],
      execute: async (a) => { if (a.text === 'slow') await gate; return 'ok'; },
    });
    const s1 = gt.session({ id: 'sA', agentName: 'a' });
    const s2 = gt.session({ id: 'sB', agentName: 'a' });
    const first = s1.callTool('edit_file', { path: 'src/routes.ts', text: 'slow' }, { callId: 'op-abc-123' });
    await new Promise((r) => setTimeout(r, 10));
    const second = await s2.callTool('edit_file', { path: 'src/routes.ts', text: 'x' });
    expect(second).toMatchObject({ ok: false, failureClass: 'guard_violation' });
    if (!second.ok) expect(second.feedback).toContain('File src/routes.ts is already being edited by operation sA/op-abc-123');
    const other = await s2.callTool('edit_file', { path: 'src/logger.ts', text: 'x' });
    expect(other.ok).toBe(true);
    release();
    expect((await first).ok).toBe(true);
    expect(gt.lockHolder('src/routes.ts')).toBeUndefined();
    expect((await s2.callTool('edit_file', { path: 'src/routes.ts', text: 'y' })).ok).toBe(true);
  });
});

describe('predicate', () => {
  it('fails with its own message and class', async () => {
    const g = predicate<{ amount: number }>({ name: 'amount_cap', test: (a) => a.amount <= 500, message: (a) => `Amount ${a.amount} exceeds the 500 cap`, failureClass: 'guard_violation' });
    expect((await g.check({ amount: 100 }, ctx)).pass).toBe(true);
    expect(await g.check({ amount: 900 }, ctx)).toMatchObject({ pass: false, reason: 'Amount 900 exceeds the 500 cap' });
  });
});
