import { FailureClassBadge } from '@/components/badges';
import { SUCCESS_COLOR } from '@/lib/failure-classes';
import { formatInt } from '@/lib/format';
import { heavyRead } from '@/server/db';
import { type DayWindow, getRepairSplit } from '@/server/queries/analytics';
import { Bar, Card, Empty, NUM, TD, TH } from './card';

const SAVED_HELP =
  "Tokens saved, estimated: each repair in code is a repair turn not spent, at the mean tokens of this range's repair turns of the class (else of all classes, marked *; scaled by sampling weight).";

const share = (n: number, of: number) => (of > 0 ? `${((100 * n) / of).toFixed(1)}%` : '—');

/** Repairs in code (SDK auto-repair, no model turn) vs by the model (rejections), per failure class. */
export async function RepairSplitPanel({ project, window }: { project: string; window: DayWindow }) {
  const rows = await heavyRead((d) => getRepairSplit(d, project, window));
  return (
    <Card
      id="repair-split"
      title="Repairs in code vs by the model"
      subtitle={`Per failure class: failed attempts the SDK corrected in code and ran again without a model turn (auto-repair), and those whose feedback went back to the model (rejections). ${SAVED_HELP}`}
    >
      {rows.length === 0 ? (
        <Empty>No repairs in this range.</Empty>
      ) : (
        <table className="min-w-full divide-y divide-slate-200 text-sm">
          <caption className="sr-only">Repairs in code and by the model per failure class</caption>
          <thead>
            <tr>
              <th scope="col" className={TH}>Failure class</th>
              <th scope="col" className={`${TH} text-right`}>In code</th>
              <th scope="col" className={`${TH} text-right`}>By the model</th>
              <th scope="col" className={`${TH} text-right`}>Share in code</th>
              <th scope="col" className={`${TH} w-1/6`}><span className="sr-only">Share in code, as a bar</span></th>
              <th scope="col" className={`${TH} text-right`} title={SAVED_HELP}>Tokens saved (est.)</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {rows.map((r) => (
              <tr key={r.failureClass} data-testid="repair-split-row" data-class={r.failureClass}>
                <th scope="row" className={`${TD} text-left font-normal`}>
                  {r.failureClass ? <FailureClassBadge failureClass={r.failureClass} /> : '—'}
                </th>
                <td className={NUM} data-testid="repairs-in-code">{formatInt(r.inCode)}</td>
                <td className={NUM} data-testid="repairs-by-model">{formatInt(r.byModel)}</td>
                <td className={`${NUM} font-medium`}>{share(r.inCode, r.inCode + r.byModel)}</td>
                <td className={TD}>
                  <Bar value={r.inCode} max={r.inCode + r.byModel} color={SUCCESS_COLOR} />
                </td>
                <td className={NUM} data-testid="tokens-saved" data-basis={r.savedBasis ?? ''}>
                  {r.savedTokens === null ? '—' : `≈ ${formatInt(r.savedTokens)}${r.savedBasis === 'all' ? ' *' : ''}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}
