import type { AutoRepairDto } from '@/server/queries/session-types';

const KIND: Record<string, string> = { argument_name: 'argument name', tool_name: 'tool name', path: 'path' };

/** A repair done in code (SDK auto-repair): what was corrected, from → to, and the pointers before and after. No model turn. */
export function AutoRepairNote({ repair }: { repair: AutoRepairDto }) {
  return (
    <div data-testid="corrected-in-code" className="mt-2 rounded border border-emerald-200 bg-emerald-50/50 px-2 py-1.5 text-xs text-slate-700">
      <p>
        <span className="font-semibold text-emerald-800">Corrected in code</span> (no model turn, no repair tokens):{' '}
        <span data-testid="auto-repair-kind">{KIND[repair.kind] ?? repair.kind}</span>
        {repair.from !== null || repair.to !== null ? (
          <>
            {' '}
            <span data-testid="auto-repair-change" className="font-mono wrap-anywhere">
              {repair.from ?? '?'} → {repair.to ?? '?'}
            </span>
          </>
        ) : null}
        {repair.correctedAttempt !== null ? <>, ran as attempt #{repair.correctedAttempt}</> : null}
      </p>
      {repair.before.length || repair.after.length ? (
        <dl data-testid="auto-repair-pointers" className="mt-1 flex flex-wrap gap-x-4 font-mono">
          <div className="flex gap-1">
            <dt className="font-sans text-slate-500">before</dt>
            <dd data-testid="auto-repair-before" className="text-red-700 wrap-anywhere">
              {repair.before.join(' ') || '—'}
            </dd>
          </div>
          <div className="flex gap-1">
            <dt className="font-sans text-slate-500">after</dt>
            <dd data-testid="auto-repair-after" className="text-emerald-800 wrap-anywhere">
              {repair.after.join(' ') || '—'}
            </dd>
          </div>
        </dl>
      ) : null}
    </div>
  );
}
