/**
 * `pnpm --filter @guardtrace/collector exec tsx bench/definitions.ts [rounds]`: what a tool
 * definition summary on each new session's tool call costs Postgres on ingest. Writes batches of
 * 300 new sessions of the ingest benchmark's shape through writeBatch on one connection, with and
 * without a ~700-byte `guardtrace.tool.definition` (one hash, as a deployed tool version sends),
 * alternating, and prints the Postgres backend's CPU (/proc) a session. The difference is the
 * bigger span rows plus storing the definition (once a collector has stored a hash, nothing).
 */
import { createPrisma, createProject } from '@guardtrace/db';
import { createTestDatabase } from '@guardtrace/db/dev';
import pg from 'pg';
import { Normalizer } from '../src/normalize.ts';
import { decodeJsonRequest } from '../src/otlp-decode.ts';
import { type Prepared, prepareSpan, requestArena } from '../src/prepare.ts';
import { writeBatch } from '../src/write-batch.ts';
import { request } from './payload.ts';
import { cpuSeconds } from './proc-cpu.ts';

const SUMMARY = JSON.stringify({
  tool: 'write_file',
  schema: {
    type: 'object',
    properties: { path: { type: 'string', description: 'workspace-relative path' }, content: { type: 'string' }, mode: { enum: ['overwrite', 'append'] } },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  guards: [
    { name: 'file_exists', stage: 'logical', options: { folders: ['src', 'docs'], mustExist: false } },
    { name: 'path_inside_workspace', stage: 'pre', options: {} },
  ],
  flags: { readOnly: false, idempotent: true, destructive: false, external: false },
  policy: { invalid_arguments: { maxRetries: 1 } },
});

type Req = { resourceSpans: { scopeSpans: { spans: { name: string; attributes: unknown[] }[] }[] }[] };

function prepared(projectId: string, sessions: number, definitions: boolean): Prepared[] {
  const req = request(sessions) as Req;
  if (definitions) {
    for (const s of req.resourceSpans[0]?.scopeSpans[0]?.spans ?? []) {
      if (!s.name.startsWith('execute_tool')) continue;
      s.attributes.push(
        { key: 'guardtrace.tool.definition.hash', value: { stringValue: '0123456789abcdef' } },
        { key: 'guardtrace.tool.definition', value: { stringValue: SUMMARY } },
      );
    }
  }
  const { spans } = new Normalizer().normalize(decodeJsonRequest(Buffer.from(JSON.stringify(req))));
  const arena = requestArena(spans.length);
  return spans.map((s) => prepareSpan(projectId, s, arena));
}


async function main() {
  const rounds = Number(process.argv[2] ?? 8);
  const db = await createTestDatabase();
  const prisma = createPrisma(db.url, { max: 1 });
  const project = await createProject(prisma, 'definitions');
  await prisma.$disconnect();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const c = client as unknown as pg.PoolClient;
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid as number;
  for (let i = 0; i < 10; i++) await writeBatch(c, [{ projectId: project.id, spans: prepared(project.id, 300, i % 2 === 0) }], 'direct');
  await client.query('ANALYZE');
  const cpu = { plain: 0, definitions: 0 };
  let sessions = 0;
  for (let r = 0; r < rounds; r++) {
    for (const withDefinitions of r % 2 ? [true, false] : [false, true]) {
      const batches = Array.from({ length: 10 }, () => prepared(project.id, 300, withDefinitions));
      const t = cpuSeconds(pid);
      for (const spans of batches) await writeBatch(c, [{ projectId: project.id, spans }], 'direct');
      cpu[withDefinitions ? 'definitions' : 'plain'] += cpuSeconds(pid) - t;
    }
    sessions += 3000;
  }
  const per = (s: number) => ((s * 1e6) / sessions).toFixed(1);
  console.log(`Postgres CPU a new session (5 spans), ${rounds} alternating rounds of 3,000: plain ${per(cpu.plain)} µs, with a definition summary ${per(cpu.definitions)} µs`);
  await client.end();
  await db.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
