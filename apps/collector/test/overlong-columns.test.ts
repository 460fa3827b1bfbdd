/**
 * Every text column a btree index or key holds, listed from the migrated schema's catalog: an
 * over-long value reaching it through OTLP is stored shortened (keyText: the span keeps the full
 * value) or its span is rejected alone with a partial-success message naming the attribute; never
 * a 500, never a lost neighbour, and the same request succeeds again. A new index on a new text
 * column fails this test until SOURCES says which OTLP value feeds it and the collector bounds it.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyText, MAX_KEY_TEXT_BYTES } from '../src/key-text.ts';
import { type Env, setupApp, setupDatabase } from './helpers.ts';
import { defaultValues, overlong, type SessionValues, send, sessionSpans } from './overlong-spans.ts';

let env: Env;
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env);
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

/**
 * Text columns of btree indexes (primary keys and unique constraints are ones), key or INCLUDE
 * columns, plain or inside an expression, and of foreign keys: `table.column`, with the type's
 * length bound (null: unbounded). Partitions are left out (their parent lists the same).
 */
const KEYED_TEXT_COLUMNS = `
WITH keyed AS (
  SELECT c.oid AS rel, a.attnum
  FROM pg_index x
  JOIN pg_class i ON i.oid = x.indexrelid
  JOIN pg_am am ON am.oid = i.relam AND am.amname = 'btree'
  JOIN pg_class c ON c.oid = x.indrelid
  CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    AND (a.attnum = k.attnum
      OR (k.attnum = 0 AND pg_get_indexdef(x.indexrelid, k.ord::int, true) ~ ('\\m' || a.attname || '\\M')))
  UNION
  SELECT x.conrelid, k.attnum FROM pg_constraint x CROSS JOIN LATERAL unnest(x.conkey) AS k(attnum) WHERE x.contype = 'f'
)
SELECT DISTINCT c.relname || '.' || a.attname AS name,
  CASE WHEN a.atttypmod > 4 THEN a.atttypmod - 4 END AS max_chars
FROM keyed
JOIN pg_class c ON c.oid = keyed.rel AND c.relkind IN ('r', 'p') AND NOT c.relispartition
JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
JOIN pg_attribute a ON a.attrelid = keyed.rel AND a.attnum = keyed.attnum
JOIN pg_type t ON t.oid = a.atttypid AND t.typname IN ('text', 'varchar', 'bpchar', 'citext')
ORDER BY 1`;

/** Tables no OTLP data reaches (the collector never writes them): their keys are the web's or the migrator's. */
const NOT_FROM_OTLP: Record<string, string> = {
  _prisma_migrations: 'the migrator (migration names)',
  alert_deliveries: "the alert evaluator's own delivery states",
  alert_states: "the alert evaluator (a rule's subject is made of the stored, already bounded tool and class names)",
  api_keys: 'the web (key hashes)',
  auth_accounts: 'sign-in (better-auth)',
  auth_rate_limits: 'sign-in (better-auth)',
  auth_sessions: 'sign-in (better-auth)',
  auth_users: 'sign-in (better-auth)',
  auth_verifications: 'sign-in (better-auth)',
  invitations: 'the web (token hashes)',
  model_prices: "the web's price table (models typed in settings)",
  project_members: 'the web (user ids of accounts)',
  replay_run_results: "the replay runner's uploads (`change` is one of REPLAY_CHANGE's values: the runs route's schema refuses any other)",
};

type Expect = 'shortened' | 'rejected' | 'bounded';

interface Source {
  /** The OTLP value, as docs/collector.md names it. */
  name: string;
  /** The session with that value over-long (`v`); `control` is a session with it short, to prove the columns are fed by it. */
  values(v: string): Partial<SessionValues>;
  expect: Expect;
  /** Columns (`table.column`) this value reaches. */
  columns: string[];
}

const TOOL_COLUMNS = [
  'tool_calls.tool_name',
  'attempts.tool_name',
  'analytics_daily.tool_name',
  'analytics_session_parts.tool_name',
  'analytics_model_daily.tool_name',
  'analytics_model_session_parts.tool_name',
  'alert_minutes.tool_name',
];
const SESSION_COLUMNS = [
  'sessions.id',
  'spans.session_id',
  'tool_calls.session_id',
  'attempts.session_id',
  'guard_checks.session_id',
  'model_calls.session_id',
  'session_search.session_id',
  'analytics_session_parts.session_id',
  'analytics_session_costs.session_id',
  'analytics_model_session_parts.session_id',
  'analytics_model_session_spend.session_id',
];
const CLASS_COLUMNS = [
  'attempts.failure_class',
  'analytics_daily.failure_class',
  'analytics_session_parts.failure_class',
  'analytics_model_daily.failure_class',
  'analytics_model_session_parts.failure_class',
  'alert_minutes.failure_class',
];

const SOURCES: Source[] = [
  { name: 'gen_ai.tool.name', values: (v) => ({ toolAttr: v }), expect: 'shortened', columns: TOOL_COLUMNS },
  { name: 'execute_tool span name', values: (v) => ({ toolAttr: null, toolSpanName: `execute_tool ${v}` }), expect: 'shortened', columns: ['tool_calls.tool_name'] },
  { name: 'gen_ai.agent.name', values: (v) => ({ agent: v }), expect: 'shortened', columns: ['sessions.agent_name'] },
  { name: 'user.id', values: (v) => ({ userKey: 'user.id', user: v }), expect: 'shortened', columns: ['sessions.user_id'] },
  { name: 'guardtrace.user.id', values: (v) => ({ userKey: 'guardtrace.user.id', user: v }), expect: 'shortened', columns: ['sessions.user_id'] },
  { name: 'guardtrace.session.outcome', values: (v) => ({ outcome: v }), expect: 'shortened', columns: ['sessions.outcome'] },
  {
    name: 'gen_ai.request.model',
    values: (v) => ({ model: v }),
    expect: 'shortened',
    columns: ['analytics_model_daily.model', 'analytics_model_session_parts.model', 'analytics_model_spend_daily.model', 'analytics_model_session_spend.model', 'alert_minutes.model'],
  },
  { name: 'guardtrace.feedback', values: (v) => ({ feedback: v }), expect: 'bounded', columns: ['analytics_daily.feedback_template', 'analytics_session_parts.feedback_template'] },
  { name: 'gen_ai.conversation.id', values: (v) => ({ session: v }), expect: 'rejected', columns: SESSION_COLUMNS },
  { name: 'guardtrace.failure.class', values: (v) => ({ failureClass: v }), expect: 'rejected', columns: CLASS_COLUMNS },
  {
    name: 'guardtrace.repair.failure_class',
    values: (v) => ({ repairClass: v, repairOrphan: true }),
    expect: 'rejected',
    columns: ['analytics_model_daily.failure_class', 'analytics_model_session_parts.failure_class'],
  },
];

let columns: { name: string; max_chars: number | null }[] = [];

describe('text columns under a btree index or key, generated from the schema', () => {
  it('each gets its value from a known OTLP source (else: add it to SOURCES, and bound it in the collector)', async () => {
    columns = (await env.sql.query(KEYED_TEXT_COLUMNS)).rows;
    const covered = new Set(SOURCES.flatMap((s) => s.columns));
    const unsafe = columns.filter(
      (c) =>
        !(c.name.split('.')[0] as string in NOT_FROM_OTLP) &&
        // varchar(n) with n <= 64 holds at most 256 bytes: it fits an index entry whatever comes.
        !(c.max_chars !== null && c.max_chars * 4 <= MAX_KEY_TEXT_BYTES),
    );
    // The catalog query finds what it should (expression and key columns alike).
    expect(unsafe.map((c) => c.name)).toEqual(expect.arrayContaining(['sessions.agent_name', 'tool_calls.tool_name', 'analytics_session_parts.feedback_template']));
    const missing = unsafe.map((c) => c.name).filter((n) => !covered.has(n));
    expect(missing, 'indexed text columns with no OTLP source in SOURCES: add one (test/overlong-columns.test.ts) and bound the value (keyText or span-rules.ts)').toEqual([]);
    const stale = [...covered].filter((n) => !unsafe.some((c) => c.name === n));
    expect(stale, 'SOURCES lists columns no longer indexed: drop them').toEqual([]);
  });

  for (const source of SOURCES) {
    it(`${source.name}: 3,000 characters ${source.expect === 'rejected' ? 'reject its span alone' : `are stored ${source.expect}`}; 50 neighbours stored; a retry succeeds`, async () => {
      const v = overlong();
      const projectId = await env.newProject();
      const { key } = await env.newKey(projectId);
      const { spans } = sessionSpans({ ...defaultValues(), ...source.values(v) });
      const count = async () => Number((await env.sql.query('SELECT count(*) AS n FROM spans WHERE project_id = $1', [projectId])).rows[0].n);
      for (let attempt = 0; attempt < 2; attempt++) {
        const answer = await send(url, key, spans, 'json');
        expect(answer.status).toBe(200);
        if (source.expect === 'rejected') {
          expect(answer.rejected).toBe(1);
          expect(answer.message).toContain(source.name);
          expect(answer.message).not.toMatch(/index|btree/i);
          expect(await count()).toBe(50);
        } else {
          expect(answer).toEqual({ status: 200, rejected: 0, message: '' });
          expect(await count()).toBe(51);
        }
      }
      for (const column of source.columns) {
        const [table, col] = column.split('.') as [string, string];
        const { rows } = await env.sql.query(`SELECT DISTINCT ${col} AS v FROM ${table} WHERE project_id = $1`, [projectId]);
        const values = rows.map((r) => r.v as string);
        if (source.expect === 'shortened') expect(values, column).toContain(keyText(v));
        // A feedback template is at most 160 characters (guardtrace_feedback_template).
        for (const x of values) expect(Buffer.byteLength(x ?? ''), column).toBeLessThanOrEqual(source.expect === 'bounded' ? 640 : MAX_KEY_TEXT_BYTES);
        if (source.expect === 'bounded') expect(values.some((x) => x.startsWith(v.slice(0, 100))), column).toBe(true);
      }
    });

    if (source.expect === 'rejected') {
      it(`${source.name}: a short value reaches ${source.columns.length} column(s), so the rejection above guards them`, async () => {
        const v = `short_${source.name.replace(/\W/g, '_')}`;
        const projectId = await env.newProject();
        const { key } = await env.newKey(projectId);
        const { spans } = sessionSpans({ ...defaultValues(), ...source.values(v) });
        expect(await send(url, key, spans, 'json')).toEqual({ status: 200, rejected: 0, message: '' });
        for (const column of source.columns) {
          const [table, col] = column.split('.') as [string, string];
          const { rows } = await env.sql.query(`SELECT 1 FROM ${table} WHERE project_id = $1 AND ${col} = $2 LIMIT 1`, [projectId, v]);
          expect(rows.length, column).toBe(1);
        }
      });
    }
  }
});

describe('every bound at once', () => {
  it('a session id of 1,024 bytes, a failure class of 256, over-long tool, model, agent and user, and 4-byte feedback fit every key together', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const values: Partial<SessionValues> = {
      session: overlong('s').slice(0, 1_024),
      failureClass: overlong('c').slice(0, 256),
      repairClass: overlong('r').slice(0, 256),
      toolAttr: overlong('t'),
      model: overlong('m'),
      agent: overlong('a'),
      user: overlong('u'),
      outcome: overlong('o'),
      // 4 bytes a character: the longest template in bytes (160 characters).
      feedback: '😀'.repeat(1_000),
    };
    const { spans } = sessionSpans({ ...defaultValues(), ...values });
    expect(await send(url, key, spans, 'protobuf')).toEqual({ status: 200, rejected: 0, message: '' });
    const parts = await env.sql.query(
      'SELECT octet_length(session_id) AS s, octet_length(tool_name) AS t, octet_length(failure_class) AS c, octet_length(feedback_template) AS f FROM analytics_session_parts WHERE project_id = $1 AND failure_class <> $2',
      [projectId, ''],
    );
    expect(parts.rows).toEqual([{ s: 1_024, t: MAX_KEY_TEXT_BYTES, c: 256, f: 640 }]);
  });
});

describe('the catalog query', () => {
  it('finds a new text column under a new index, plain, in an expression or included', async () => {
    await env.sql.query('CREATE TABLE overlong_probe (project_id uuid, a text, b varchar(300), c text, d text, e varchar(16))');
    try {
      await env.sql.query('CREATE INDEX ON overlong_probe (project_id, a)');
      await env.sql.query('CREATE INDEX ON overlong_probe ((lower(b)))');
      await env.sql.query('CREATE UNIQUE INDEX ON overlong_probe (project_id) INCLUDE (c)');
      await env.sql.query('CREATE INDEX ON overlong_probe (e)');
      const found = (await env.sql.query(KEYED_TEXT_COLUMNS)).rows.filter((r) => r.name.startsWith('overlong_probe.'));
      expect(found).toEqual([
        { name: 'overlong_probe.a', max_chars: null },
        { name: 'overlong_probe.b', max_chars: 300 },
        { name: 'overlong_probe.c', max_chars: null },
        { name: 'overlong_probe.e', max_chars: 16 },
      ]);
    } finally {
      await env.sql.query('DROP TABLE overlong_probe');
    }
  });
});
