import type { ReadChoice } from '@guardtrace/db';
import { replicaLagNotice } from '@/server/db';

/** "12 s", "3 min": how far behind, rounded up (the figure is an upper bound; never "0 s"). */
export function lagText(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  return s < 120 ? `${s} s` : `${Math.ceil(s / 60)} min`;
}

/**
 * Above the heavy pages (explorer, replay, analytics), when their data comes from a read replica
 * further behind than GUARDTRACE_READ_LAG_NOTICE_SECONDS: what was written since is not shown yet.
 * `choice`: where the page's data came from, when not this request's usual choice (a session found
 * on the primary only).
 */
export async function ReplicaLagNotice({ choice }: { choice?: ReadChoice }) {
  const notice = await replicaLagNotice(choice);
  if (!notice) return null;
  return (
    <p role="status" data-testid="replica-lag" className="mb-4 rounded-md border border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-900">
      Showing data as of {lagText(notice.lagMs)} ago (read replica lagging): what was recorded since then is not shown yet.
    </p>
  );
}
