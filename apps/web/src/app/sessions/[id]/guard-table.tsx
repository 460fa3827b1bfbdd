import { FailureClassBadge, VerdictBadge } from '@/components/badges';
import { formatMicros } from '@/lib/format';
import type { GuardCheckDto } from '@/server/queries/session-types';
import { GuardrailFacts } from './guardrail-facts';

/** The guard checks of an attempt or a call: guard, stage, result, reason and duration. */
export function GuardTable({ checks }: { checks: GuardCheckDto[] }) {
  if (checks.length === 0) return <p className="text-xs text-slate-400">No guard results recorded.</p>;
  return (
    <table className="w-full table-fixed text-xs">
      <thead>
        <tr className="text-left text-[11px] uppercase tracking-wide text-slate-400">
          <th className="w-[22%] py-1 pr-3 font-medium">Guard</th>
          <th className="w-[13%] py-1 pr-3 font-medium">Stage</th>
          <th className="w-[10%] py-1 pr-3 font-medium">Result</th>
          <th className="py-1 pr-3 font-medium">Reason</th>
          <th className="w-[10%] py-1 text-right font-medium">Duration</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {checks.map((g) => (
          <tr key={g.spanId} data-testid="guard-check" data-verdict={g.verdict} className="align-top">
            <td className="truncate py-1.5 pr-3 font-mono text-slate-800" title={g.guardName}>
              {g.guardName}
            </td>
            <td className="py-1.5 pr-3 text-slate-600">{g.stage ?? '—'}</td>
            <td className="py-1.5 pr-3">
              <VerdictBadge verdict={g.verdict} />
            </td>
            <td className="py-1.5 pr-3 text-slate-700">
              {g.reason ? (
                <span data-testid="guard-reason" title={g.reason} className="line-clamp-3 whitespace-pre-line wrap-anywhere">
                  {g.reason}
                </span>
              ) : (
                <span className="text-slate-400">—</span>
              )}
              {g.failureClass && g.verdict !== 'pass' ? (
                <span className="mt-1 inline-block">
                  <FailureClassBadge failureClass={g.failureClass} />
                </span>
              ) : null}
              <GuardrailFacts check={g} />
            </td>
            <td className="py-1.5 text-right tabular-nums text-slate-600">{formatMicros(g.durationUs)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
