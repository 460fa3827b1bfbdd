import { describe, expect, it } from 'vitest';
import { sqlHeuristics, sqlViolation } from './sql.ts';

describe('SQL heuristics (node-sql-parser)', () => {
  const opts = { largeTables: ['events'] };
  it('rejects UPDATE and DELETE without WHERE', () => {
    expect(sqlViolation('DELETE FROM orders', opts)).toMatch(/^DELETE without WHERE would touch every row of orders/);
    expect(sqlViolation("UPDATE orders SET status = 'x'", opts)).toMatch(/^UPDATE without WHERE/);
    expect(sqlViolation('DELETE FROM orders WHERE id = 3', opts)).toBeUndefined();
  });

  it('rejects SELECT * on configured large tables only', () => {
    expect(sqlViolation('SELECT * FROM events', opts)).toMatch(/SELECT \* on large table events/);
    expect(sqlViolation('SELECT * FROM Events e WHERE e.id = 1', opts)).toMatch(/large table Events/);
    expect(sqlViolation('SELECT * FROM users', opts)).toBeUndefined();
    expect(sqlViolation('SELECT id, kind FROM events LIMIT 10', opts)).toBeUndefined();
  });

  it('rejects joins without a condition, including in sub-selects', () => {
    expect(sqlViolation('SELECT o.id FROM orders o JOIN users u', opts)).toMatch(/JOIN of users without a condition/);
    expect(sqlViolation('SELECT o.id FROM orders o, users u', opts)).toMatch(/cartesian/);
    expect(sqlViolation('SELECT x.id FROM (SELECT o.id FROM orders o JOIN users u) x', opts)).toMatch(/JOIN of users/);
    expect(sqlViolation('SELECT o.id FROM orders o JOIN users u ON u.id = o.user_id', opts)).toBeUndefined();
    expect(sqlViolation('SELECT o.id FROM orders o, users u WHERE u.id = o.user_id', opts)).toBeUndefined();
  });

  it('reports unparsable SQL as invalid arguments', async () => {
    const g = sqlHeuristics<{ q: string }>({ sql: (a) => a.q });
    const r = await g.check({ q: 'SELEC id FRM x' }, {} as never);
    expect(r).toMatchObject({ pass: false, failureClass: 'invalid_arguments' });
  });
});
