/**
 * `@guardtrace/sdk/guards/sql`: SQL heuristics on a real parser (node-sql-parser, ~89 MB
 * installed: an optional peer dependency, loaded when this subpath is imported).
 */
import { pointersTo } from '../pointer.ts';
import type { Guard, GuardOutcome } from '../types.ts';
import type { Loose } from './args.ts';
import { optionalPeer } from './optional-peer.ts';

/** The part of node-sql-parser the guard uses (its own types are not needed to use ours). */
interface SqlParser {
  astify(sql: string, opts: { database: string }): unknown;
}
const { Parser } = optionalPeer<{ Parser: new () => SqlParser }>('node-sql-parser', '^5.4.0', 'guards/sql');
const parser = new Parser();

export interface SqlHeuristicsOptions<A> {
  sql: (args: Loose<A>) => string;
  /** Dialect of node-sql-parser (default `postgresql`). */
  database?: string;
  /** Tables too large for `SELECT *`. Compared case-insensitively, without schema. */
  largeTables?: string[];
  name?: string;
}

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null;

function tableName(from: Node): string | undefined {
  return typeof from.table === 'string' ? from.table : undefined;
}

/** Walks every statement, including sub-selects in FROM, WITH and expressions. */
function statements(ast: unknown): Node[] {
  const out: Node[] = [];
  const visit = (n: unknown): void => {
    if (Array.isArray(n)) {
      for (const x of n) visit(x);
      return;
    }
    if (!isNode(n)) return;
    if (typeof n.type === 'string' && ['select', 'update', 'delete'].includes(n.type) && ('from' in n || 'table' in n)) out.push(n);
    for (const v of Object.values(n)) if (isNode(v) || Array.isArray(v)) visit(v);
  };
  visit(ast);
  return out;
}

/** Finds the first heuristic a query breaks; undefined when it passes. */
export function sqlViolation(sql: string, opts: { database?: string; largeTables?: string[] } = {}): string | undefined {
  const ast = parser.astify(sql, { database: opts.database ?? 'postgresql' });
  const large = new Set((opts.largeTables ?? []).map((t) => t.toLowerCase()));
  for (const st of statements(ast)) {
    const from = (Array.isArray(st.from) ? st.from : []).filter(isNode);
    if (st.type === 'update' || st.type === 'delete') {
      if (!st.where) {
        const targets = (Array.isArray(st.table) ? st.table : []).filter(isNode).map(tableName).filter(Boolean);
        const verb = String(st.type).toUpperCase();
        return `${verb} without WHERE would touch every row of ${targets.join(', ') || 'the table'}. Add a WHERE clause that selects the rows to change.`;
      }
      continue;
    }
    const columns = Array.isArray(st.columns) ? st.columns.filter(isNode) : [];
    const star = columns.some((c) => isNode(c.expr) && c.expr.type === 'column_ref' && c.expr.column === '*');
    if (star) {
      const big = from.map(tableName).find((t) => t !== undefined && large.has(t.toLowerCase()));
      if (big) return `SELECT * on large table ${big}. Name the columns you need and add a LIMIT.`;
    }
    for (const f of from.slice(1)) {
      const joined = typeof f.join === 'string';
      if (joined && !f.on && !f.using && !/CROSS|NATURAL/i.test(String(f.join))) {
        return `JOIN of ${tableName(f) ?? 'a table'} without a condition is a cartesian product. Add ON or USING.`;
      }
      if (!joined && !st.where) {
        return `Tables ${from.map(tableName).filter(Boolean).join(', ')} are listed without a join condition (cartesian product). Use JOIN ... ON.`;
      }
    }
  }
  return undefined;
}

/** SQL heuristics on a real parser: no UPDATE/DELETE without WHERE, no SELECT * on large tables, no join without a condition. */
export function sqlHeuristics<A>(opts: SqlHeuristicsOptions<A>): Guard<A> {
  return {
    name: opts.name ?? 'sql_heuristics',
    options: { sql: opts.sql, database: opts.database ?? 'postgresql', largeTables: [...(opts.largeTables ?? [])].sort() },
    check(args): GuardOutcome {
      const sql = opts.sql(args as Loose<A>);
      let problem: string | undefined;
      try {
        problem = sqlViolation(sql, opts);
      } catch (err) {
        const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
        return { pass: false, reason: `SQL does not parse: ${msg}`, feedback: `TOOL CALL REJECTED: the SQL does not parse: ${msg}`, failureClass: 'invalid_arguments', pointers: pointersTo(args, sql) };
      }
      if (!problem) return { pass: true };
      return { pass: false, reason: problem, feedback: `TOOL CALL REJECTED: ${problem}`, failureClass: 'guard_violation', pointers: pointersTo(args, sql) };
    },
  };
}
