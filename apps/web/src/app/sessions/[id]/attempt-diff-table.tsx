import type { DiffRow } from '@/lib/attempt-diff-rows';
import type { PointerVerdict } from '@/lib/json-diff';

const VERDICT_TEXT: Record<PointerVerdict, string> = {
  fixed: 'fixed',
  'still-failing': 'still failing',
  'changed-something-else': 'changed something else',
  ignored: 'ignored',
};

const VERDICT_HELP: Record<PointerVerdict, string> = {
  fixed: 'the value at the failed field changed and the check passed',
  'still-failing': 'the value changed, the check still fails there',
  'changed-something-else': 'the failed field is unchanged; other fields changed',
  ignored: 'nothing changed',
};

// Dark text on light tints: every pair is above 4.5:1.
const VERDICT_STYLE: Record<PointerVerdict, string> = {
  fixed: 'bg-emerald-50 text-emerald-900 ring-emerald-300',
  'still-failing': 'bg-red-50 text-red-900 ring-red-300',
  'changed-something-else': 'bg-amber-50 text-amber-950 ring-amber-300',
  ignored: 'bg-slate-100 text-slate-800 ring-slate-300',
};

const KIND_STYLE: Record<DiffRow['kind'], string> = {
  added: 'text-emerald-800',
  removed: 'text-red-800',
  changed: 'text-amber-900',
  moved: 'text-indigo-800',
  unchanged: 'text-slate-700',
};

function show(v: unknown, present: boolean): string {
  if (!present) return '(absent)';
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s;
}

function Value({ value, present }: { value: unknown; present: boolean }) {
  return (
    <code className={`block max-h-40 overflow-auto whitespace-pre-wrap font-mono text-xs wrap-anywhere ${present ? 'text-slate-900' : 'italic text-slate-500'}`}>
      {show(value, present)}
    </code>
  );
}

function PointerVerdictBadge({ verdict }: { verdict: PointerVerdict }) {
  return (
    <span
      data-testid="pointer-verdict"
      data-verdict={verdict}
      title={VERDICT_HELP[verdict]}
      className={`inline-flex items-center whitespace-nowrap rounded-md px-2 py-0.5 text-xs font-semibold ring-1 ring-inset ${VERDICT_STYLE[verdict]}`}
    >
      {VERDICT_TEXT[verdict]}
    </span>
  );
}

/** The diff's rows: the tool field (when it changed or failed), then argument paths as JSON pointers into the arguments. */
export function AttemptDiffTable({ rows, before, after }: { rows: DiffRow[]; before: number; after: number }) {
  return (
    <table className="mt-2 w-full table-fixed text-xs">
      <caption className="sr-only">
        Changed fields from attempt {before} to attempt {after}
      </caption>
      <thead>
        <tr className="text-left text-[11px] uppercase tracking-wide text-slate-600">
          <th scope="col" className="w-[28%] py-1 pl-2 pr-2 font-medium">Path</th>
          <th scope="col" className="w-[12%] py-1 pr-2 font-medium">Change</th>
          <th scope="col" className="py-1 pr-2 font-medium">Before (#{before})</th>
          <th scope="col" className="py-1 pr-2 font-medium">After (#{after})</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {rows.map((r) => (
          <tr
            key={`${r.field}:${r.kind}:${r.pointer}:${r.beforePointer ?? ''}`}
            data-testid="diff-change"
            data-field={r.field}
            data-pointer={r.field === 'argument' ? r.pointer : undefined}
            data-failed={r.failed ? 'true' : undefined}
            className={`align-top ${r.failed ? 'bg-rose-50 outline-2 -outline-offset-2 outline-rose-400' : ''}`}
          >
            <th scope="row" className="py-1.5 pl-2 pr-2 text-left font-mono font-normal text-slate-900 wrap-anywhere">
              {r.field === 'tool' ? <span className="font-sans font-medium">tool name</span> : r.pointer === '' ? '(whole arguments)' : r.pointer}
              {r.beforePointer && r.beforePointer !== r.pointer ? <span className="block text-[11px] text-slate-600">was {r.beforePointer}</span> : null}
              {r.failed ? (
                <span className="mt-1 flex flex-wrap items-center gap-1 font-sans">
                  <span className="text-[11px] font-semibold text-rose-900">failed check</span>
                  {r.verdict ? <PointerVerdictBadge verdict={r.verdict} /> : null}
                </span>
              ) : null}
            </th>
            <td className={`py-1.5 pr-2 font-medium ${KIND_STYLE[r.kind]}`}>{r.kind}</td>
            <td className="py-1.5 pr-2">
              <Value value={r.before.value} present={r.before.present} />
            </td>
            <td className="py-1.5 pr-2">
              <Value value={r.after.value} present={r.after.present} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
