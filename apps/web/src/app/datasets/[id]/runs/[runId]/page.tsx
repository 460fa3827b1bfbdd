import type { ReplayResult } from '@guardtrace/semconv';
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { PageTitle, Shell } from '@/components/shell';
import { formatDateTime, formatInt } from '@/lib/format';
import { CHANGE_TEXT, type RecordedAttempt } from '@/lib/replay-run';
import { decodeParam, hrefWith, type RawSearchParams } from '@/lib/search-params';
import { selectProject } from '@/server/context';
import { db } from '@/server/db';
import { getReplayRun, recordedAttempts, replayRunGroups } from '@/server/queries/replay-runs';
import { RunResult } from '../run-result';
import { ChangeCounts } from '../runs-section';

export const metadata: Metadata = { title: 'Replay run' };

type Props = { params: Promise<{ id: string; runId: string }>; searchParams: Promise<RawSearchParams> };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Rows shown per change: a guard change that rejects 100,000 calls is read from its first ones
// (and the runner's JSON report); the count says how many there are.
const PER_GROUP = 200;

/**
 * A guard regression replay's run of a dataset (as `guardtrace-replay --upload` posted it): the
 * changed calls grouped by change, each with its recorded and new decision side by side and a
 * link to its replay step. Every member of the project reads it (viewers too).
 */
export default async function ReplayRunPage({ params, searchParams }: Props) {
  const [{ id: rawId, runId: rawRun }, sp] = await Promise.all([params, searchParams]);
  const datasetId = decodeParam(rawId);
  const runId = decodeParam(rawRun);
  if (!UUID.test(datasetId) || !UUID.test(runId)) notFound();
  const selection = await selectProject(sp);
  const project = selection.current;
  const run = project ? await getReplayRun(db(), project.id, datasetId, runId) : null;
  if (project && !run) notFound();
  const groups = run ? await replayRunGroups(db(), run, PER_GROUP) : [];
  // Each listed item's changed attempts (an item's attempts may change differently) and recorded attempts.
  const byItem = new Map<string, ReplayResult[]>();
  for (const r of groups.flatMap((g) => g.results)) byItem.set(r.itemId, [...(byItem.get(r.itemId) ?? []), r]);
  const attempts = run ? await recordedAttempts(db(), datasetId, [...byItem.keys()]) : new Map<string, RecordedAttempt[]>();
  const changed = groups.reduce((n, g) => n + g.total, 0);
  return (
    <Shell selection={selection} section="datasets">
      {run && project ? (
        <>
          <nav className="mb-2 text-sm">
            <Link href={hrefWith(`/datasets/${datasetId}`, { project: project.id })} prefetch={false} className="text-indigo-700 hover:underline">
              ← Dataset
            </Link>
          </nav>
          <PageTitle
            title={`Replay run${run.label ? `: ${run.label}` : ''}`}
            subtitle={`Started ${formatDateTime(run.startedAt)} · ${formatInt(run.calls)} calls, ${run.counts.not_replayed > 0 ? `${formatInt(Math.max(0, run.attempts - run.counts.not_replayed))} of ` : ''}${formatInt(run.attempts)} attempts replayed (${run.execute === 'read-only' ? 'guards and read-only tools' : 'guards only'})${run.failOn.length ? ` · fails on ${run.failOn.map((c) => (c in CHANGE_TEXT ? CHANGE_TEXT[c as keyof typeof CHANGE_TEXT].title.toLowerCase() : c)).join(', ')}` : ''}`}
          />
          <ChangeCounts counts={run.counts} />
          {changed === 0 ? (
            <p className="mt-6 text-sm text-slate-700" data-testid="run-unchanged">
              Every replayed attempt was decided as recorded.
            </p>
          ) : null}
          {groups.map((g) => (
            <section key={g.change} className="mt-8" data-testid="run-group" data-change={g.change} aria-labelledby={`group-${g.change}`}>
              <h2 id={`group-${g.change}`} className="text-lg font-semibold text-slate-900">
                {CHANGE_TEXT[g.change].title} <span className="font-normal text-slate-600">({formatInt(g.total)})</span>
              </h2>
              <p className="text-sm text-slate-600">
                {CHANGE_TEXT[g.change].help}
                {g.total > g.results.length ? `; the first ${formatInt(g.results.length)} are shown (the runner's JSON report lists every one)` : ''}.
              </p>
              <ul className="mt-3 space-y-3">
                {g.results.map((r) => (
                  <RunResult key={`${r.itemId}:${r.attempt}`} result={r} itemResults={byItem.get(r.itemId) ?? [r]} attempts={attempts.get(r.itemId) ?? null} />
                ))}
              </ul>
            </section>
          ))}
        </>
      ) : null}
    </Shell>
  );
}
