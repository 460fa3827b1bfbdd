import Link from 'next/link';
import { formatDateTime, formatInt } from '@/lib/format';
import { CHANGE_TEXT } from '@/lib/replay-run';
import { hrefWith } from '@/lib/search-params';
import { db } from '@/server/db';
import { CHANGE_ORDER, type ChangeCounts as Counts, listReplayRuns } from '@/server/queries/replay-runs';

// Dark text on light tints (above 4.5:1), one tone per change.
const TONE: Record<(typeof CHANGE_ORDER)[number], string> = {
  newly_rejected: 'bg-red-50 text-red-900 ring-red-200',
  newly_allowed: 'bg-amber-50 text-amber-950 ring-amber-300',
  class_changed: 'bg-violet-50 text-violet-900 ring-violet-200',
  feedback_changed: 'bg-sky-50 text-sky-900 ring-sky-200',
  not_replayed: 'bg-slate-100 text-slate-800 ring-slate-300',
};

/** A run's count per change, as chips (unchanged first, in grey). */
export function ChangeCounts({ counts }: { counts: Counts }) {
  return (
    <ul className="flex flex-wrap gap-2 text-sm" aria-label="Attempts per change">
      <li className="rounded-md bg-white px-2.5 py-1 text-slate-800 ring-1 ring-inset ring-slate-200" data-testid="run-count" data-change="unchanged">
        {CHANGE_TEXT.unchanged.title}: <span className="font-semibold tabular-nums">{formatInt(counts.unchanged)}</span>
      </li>
      {CHANGE_ORDER.map((c) => (
        <li key={c} className={`rounded-md px-2.5 py-1 ring-1 ring-inset ${TONE[c]}`} data-testid="run-count" data-change={c} title={CHANGE_TEXT[c].help}>
          {CHANGE_TEXT[c].title}: <span className="font-semibold tabular-nums">{formatInt(counts[c])}</span>
        </li>
      ))}
    </ul>
  );
}

const TH = 'whitespace-nowrap px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-600';

/**
 * The dataset page's "Runs" section: each replay run uploaded for the dataset, oldest first, with
 * its label and its count per change, so a guard change's effect reads over time. Each links to its run page.
 */
export async function RunsSection({ projectId, datasetId }: { projectId: string; datasetId: string }) {
  const runs = await listReplayRuns(db(), projectId, datasetId);
  return (
    <section className="mt-8" aria-labelledby="runs-title" data-testid="dataset-runs">
      <h2 id="runs-title" className="text-lg font-semibold text-slate-900">
        Runs
      </h2>
      {runs.length === 0 ? (
        <p className="mt-2 text-sm text-slate-700">
          No replay runs yet. Run the current guards over this dataset and upload the result:{' '}
          <code className="rounded bg-slate-100 px-1 font-mono text-xs">
            npx guardtrace-replay --tools ./agent-tools.mjs --dataset {datasetId} --endpoint … --key … --upload
          </code>
        </p>
      ) : (
        <div className="mt-3 overflow-x-auto rounded-lg bg-white shadow-sm ring-1 ring-slate-200">
          <table className="min-w-full divide-y divide-slate-200 text-sm">
            <thead>
              <tr>
                <th className={TH}>Run</th>
                <th className={TH}>Started</th>
                <th className={`${TH} text-right`}>Attempts</th>
                {CHANGE_ORDER.map((c) => (
                  <th key={c} className={`${TH} text-right`} title={CHANGE_TEXT[c].help}>
                    {CHANGE_TEXT[c].title}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {runs.map((r) => (
                <tr key={r.id} data-testid="dataset-run" data-run-id={r.id}>
                  <td className="px-3 py-2">
                    <Link href={hrefWith(`/datasets/${datasetId}/runs/${r.id}`, { project: projectId })} prefetch={false} className="text-indigo-700 hover:underline">
                      {r.label ?? r.id.slice(0, 8)}
                    </Link>
                  </td>
                  <td className="whitespace-nowrap px-3 py-2 text-slate-700">{formatDateTime(r.startedAt)}</td>
                  <td className="px-3 py-2 text-right tabular-nums">{formatInt(r.attempts)}</td>
                  {CHANGE_ORDER.map((c) => (
                    <td key={c} className={`px-3 py-2 text-right tabular-nums ${r.counts[c] > 0 ? 'font-semibold text-slate-900' : 'text-slate-500'}`} data-change={c}>
                      {formatInt(r.counts[c])}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
