/**
 * Issue 26's four over-long values (3,000 characters in gen_ai.tool.name, gen_ai.agent.name,
 * user.id, an execute_tool span's name), each among 50 valid neighbours, sent as OTLP JSON and
 * protobuf over real HTTP to the production build (main.js, as `pnpm start` runs it): 200 with nothing rejected, all 51 spans stored, the indexed column
 * shortened (keyText) while the span keeps the full value, and the same request accepted again
 * without a second copy. Before the fix each was a 500 that stored none of the 51.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyText } from '../src/key-text.ts';
import { type Env, setupDatabase, startCollectorProcess } from './helpers.ts';
import { defaultValues, overlong, type SessionValues, send, sessionSpans } from './overlong-spans.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let env: Env;
let outDir = '';
let proc: ChildProcess | undefined;
let url: string;

beforeAll(async () => {
  // Built into a folder of its own inside the app (so its external packages resolve), as main.test.ts does.
  const cache = path.join(root, 'node_modules/.cache');
  await fs.mkdir(cache, { recursive: true });
  outDir = await fs.mkdtemp(path.join(cache, 'guardtrace-build-'));
  const b = spawnSync(process.execPath, ['scripts/build.mjs', outDir], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  expect(b.status, b.stderr).toBe(0);
  env = await setupDatabase();
  ({ proc, url } = await startCollectorProcess(env.db.url, 0, { main: path.join(outDir, 'main.js') }));
});
afterAll(async () => {
  proc?.kill('SIGTERM');
  if (proc && proc.exitCode === null) await new Promise((r) => proc?.once('exit', r));
  await env?.close();
  if (outDir) await fs.rm(outDir, { recursive: true, force: true });
});

interface Case {
  name: string;
  values(v: string): Partial<SessionValues>;
  /** The indexed column that holds it, and where the span keeps it whole (SQL over `spans s`). */
  column: string;
  full: string;
}

const CASES: Case[] = [
  {
    name: 'gen_ai.tool.name',
    values: (v) => ({ toolAttr: v }),
    column: 'SELECT tool_name AS v FROM tool_calls WHERE project_id = $1',
    full: "SELECT s.attributes->>'gen_ai.tool.name' AS v FROM spans s WHERE project_id = $1 AND s.role = 'tool_call'",
  },
  {
    name: 'gen_ai.agent.name',
    values: (v) => ({ agent: v }),
    column: 'SELECT agent_name AS v FROM sessions WHERE project_id = $1',
    full: "SELECT s.attributes->>'gen_ai.agent.name' AS v FROM spans s WHERE project_id = $1 AND s.attributes ? 'gen_ai.agent.name'",
  },
  {
    name: 'user.id',
    values: (v) => ({ userKey: 'user.id', user: v }),
    column: 'SELECT user_id AS v FROM sessions WHERE project_id = $1',
    full: "SELECT s.attributes->>'user.id' AS v FROM spans s WHERE project_id = $1 AND s.attributes ? 'user.id'",
  },
  {
    name: 'an execute_tool span name',
    values: (v) => ({ toolAttr: null, toolSpanName: `execute_tool ${v}` }),
    column: 'SELECT tool_name AS v FROM tool_calls WHERE project_id = $1',
    full: "SELECT substr(s.name, length('execute_tool ') + 1) AS v FROM spans s WHERE project_id = $1 AND s.role = 'tool_call'",
  },
];

const values = async (q: string, projectId: string) => (await env.sql.query(q, [projectId])).rows.map((r) => r.v as string);

describe('an over-long indexed value among 50 valid neighbours', () => {
  for (const c of CASES) {
    for (const encoding of ['json', 'protobuf'] as const) {
      it(`${c.name} of 3,000 characters (${encoding}): 200, 51 spans stored, shortened in its column, whole in the span; a retry adds nothing`, async () => {
        const v = overlong();
        const projectId = await env.newProject();
        const { key } = await env.newKey(projectId);
        const { spans } = sessionSpans({ ...defaultValues(), ...c.values(v) });
        expect(spans).toHaveLength(51);
        for (let attempt = 0; attempt < 2; attempt++) {
          expect(await send(url, key, spans, encoding)).toEqual({ status: 200, rejected: 0, message: '' });
          const n = await env.sql.query('SELECT count(*)::int AS n, count(DISTINCT span_id)::int AS d FROM spans WHERE project_id = $1', [projectId]);
          expect(n.rows[0]).toEqual({ n: 51, d: 51 });
          expect(await values(c.column, projectId)).toEqual([keyText(v)]);
          expect(await values(c.full, projectId)).toEqual([v]);
        }
      });
    }
  }

  it('two long values that share their first 2,000 characters stay two keys (two tools, two agents)', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const common = overlong().slice(0, 2_000);
    const [a, b] = [`${common}a`, `${common}b`];
    for (const v of [a, b]) {
      const { spans } = sessionSpans({ ...defaultValues(), toolAttr: v, agent: v });
      expect(await send(url, key, spans, 'protobuf')).toEqual({ status: 200, rejected: 0, message: '' });
    }
    const tools = await values('SELECT DISTINCT tool_name AS v FROM tool_calls WHERE project_id = $1 ORDER BY 1', projectId);
    const agents = await values('SELECT DISTINCT agent_name AS v FROM sessions WHERE project_id = $1 ORDER BY 1', projectId);
    expect(tools).toEqual([keyText(a), keyText(b)].sort());
    expect(agents).toEqual(tools);
  });
});

describe('guardtrace_key_text (SQL) and keyText (collector) are one rule', () => {
  it('give the same text for short, long, multi-byte and astral values', async () => {
    const inputs = [
      'write_file',
      'a'.repeat(256),
      'a'.repeat(257),
      overlong(),
      'é'.repeat(200),
      '漢'.repeat(1000),
      '😀'.repeat(100),
      `x${'😀'.repeat(700)}`,
      `tool ${'ü'.repeat(300)} end`,
    ];
    const { rows } = await env.sql.query('SELECT guardtrace_key_text(v) AS k FROM unnest($1::text[]) WITH ORDINALITY AS t(v, i) ORDER BY i', [inputs]);
    expect(rows.map((r) => r.k)).toEqual(inputs.map((v) => keyText(v)));
  });
});
