import Link from 'next/link';
import { hrefWith } from '@/lib/search-params';
import { db } from '@/server/db';
import type { DayWindow } from '@/server/queries/analytics';

const DAY_MS = 86_400_000;

/**
 * Says when the window reaches back past the project's retention: the collector deletes a session
 * (and its share of every rollup) that many days after it ended, so the figures of those days
 * count only the sessions still kept, not every session that ran then.
 */
export async function RetentionNotice({ project, window, now = new Date() }: { project: string; window: DayWindow; now?: Date }) {
  if (!project) return null;
  // Set in Settings: from the primary (read-your-writes).
  const row = await db().project.findUnique({ where: { id: project }, select: { retentionDays: true } });
  const days = row?.retentionDays;
  if (!days) return null;
  // The sessions that ended before this instant are deleted (checked hourly): its day is the first
  // one the window can hold whole.
  const cutoff = new Date(now.getTime() - days * DAY_MS).toISOString().slice(0, 10);
  if (window.from >= cutoff) return null;
  return (
    <p role="note" className="mb-4 rounded-md border border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-900" data-testid="retention-notice">
      This project keeps sessions {days} {days === 1 ? 'day' : 'days'} after they end (
      <Link href={hrefWith('/settings', { project })} className="underline">
        Settings &gt; Retention
      </Link>
      ): before {cutoff}, the figures count only the sessions still kept, not every session that ran then.
    </p>
  );
}
