import pg from 'pg';

/** Partition name for the month starting at `d` (UTC): spans_p2026_11. */
function partitionName(d: Date): string {
  return `spans_p${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

function monthStart(d: Date, offset = 0): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1));
}

/**
 * The monthly partitions that should exist at `now`: last month to `ahead` months ahead,
 * each with its name and UTC bounds [from, to).
 */
export function partitionMonths(now: Date, ahead: number): { name: string; from: Date; to: Date }[] {
  const months = [];
  for (let m = -1; m <= ahead; m++) {
    const from = monthStart(now, m);
    months.push({ name: partitionName(from), from, to: monthStart(now, m + 1) });
  }
  return months;
}

export interface PartitionReport {
  created: string[];
}

/**
 * Spans are partitioned by month of their trace's start time (`trace_start`, fixed in the
 * trace index when the trace is first stored), so all spans of a trace share a partition and a
 * span re-sent with another start time of its own has the same primary key.
 *
 * Creates monthly span partitions from last month to `monthsAhead` ahead (dropping old ones
 * is the retention job's: retention.ts). Idempotent; safe to run
 * from every process at start and daily. A month whose rows already sit in spans_default
 * (data older or newer than the partitions made so far) is left to the default partition.
 */
export async function maintainSpanPartitions(
  connectionString: string,
  opts: { now?: Date; monthsAhead?: number } = {},
): Promise<PartitionReport> {
  const now = opts.now ?? new Date();
  // Two months ahead: a collector that is not restarted for weeks still finds its partition.
  const ahead = opts.monthsAhead ?? 2;
  const client = new pg.Client({ connectionString });
  client.on('error', () => {});
  await client.connect();
  const report: PartitionReport = { created: [] };
  try {
    const existing = new Set(
      (
        await client.query<{ name: string }>(
          `SELECT c.relname AS name FROM pg_inherits i
           JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
           WHERE p.relname = 'spans'`,
        )
      ).rows.map((r) => r.name),
    );
    for (const { name, from, to } of partitionMonths(now, ahead)) {
      if (existing.has(name)) continue;
      const inDefault = await client.query(
        'SELECT 1 FROM spans_default WHERE trace_start >= $1 AND trace_start < $2 LIMIT 1',
        [from, to],
      );
      if (inDefault.rowCount) continue;
      try {
        await client.query(
          `CREATE TABLE IF NOT EXISTS "${name}" PARTITION OF spans FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`,
        );
        report.created.push(name);
      } catch (err) {
        // Another process created it first, or rows arrived in default meanwhile: both fine.
        if (!/already exists|would be violated/.test((err as Error).message)) throw err;
      }
    }
    return report;
  } finally {
    await client.end().catch(() => {});
  }
}
