import Link from 'next/link';
import { FailureClassBadge } from '@/components/badges';
import { explorerHref } from '@/lib/explorer-link';
import { classStyle, SUCCESS_COLOR } from '@/lib/failure-classes';
import { formatInt } from '@/lib/format';
import { heavyRead } from '@/server/db';
import {
  type DayWindow,
  getClassShares,
  getRejectionEffectiveness,
  getRetryExhaustion,
  getToolClassCosts,
} from '@/server/queries/analytics';
import { Bar, Card, Empty, NUM, TD, TH } from './card';

interface PanelProps {
  project: string;
  window: DayWindow;
}

const LINK = 'font-medium text-slate-900 underline decoration-slate-300 underline-offset-2 hover:decoration-slate-700';
const UNKNOWN_TOOL = '(no stored attempt)';

/** A segment's sessions in the explorer: its tool and class, started in the page's window. */
function SegmentLink({
  project,
  window,
  tool,
  failureClass,
  children,
}: {
  project: string;
  window: DayWindow;
  tool?: string;
  failureClass?: string;
  children: React.ReactNode;
}) {
  return (
    <Link href={explorerHref(project, { tool, failureClass, failedDays: window })} className={LINK} data-testid="segment-link">
      {children}
    </Link>
  );
}

const pct = (n: number, of: number) => (of > 0 ? `${((100 * n) / of).toFixed(1)}%` : '—');

/** Tool × failure class ranked by tokens spent on failed attempts. */
export async function ToolClassPanel({ project, window }: PanelProps) {
  const rows = await heavyRead((d) => getToolClassCosts(d, project, window));
  const max = rows[0]?.failedTokens ?? 0;
  return (
    <Card
      id="tool-class"
      title="Where failed attempts cost tokens"
      subtitle="Tool × failure class, ranked by the tokens of the model turns that repaired its failed attempts (scaled by sampling weight). Failed attempts count by their UTC day, a session started before the range included. Sessions: distinct sessions in the range, each counted once."
    >
      {rows.length === 0 ? (
        <Empty>No failed attempts in this range.</Empty>
      ) : (
        <div className="overflow-x-auto">
          <table className="min-w-full divide-y divide-slate-200 text-sm">
            <caption className="sr-only">Tools and failure classes ranked by tokens spent on failed attempts</caption>
            <thead>
              <tr>
                <th scope="col" className={TH}>Tool</th>
                <th scope="col" className={TH}>Failure class</th>
                <th scope="col" className={`${TH} text-right`}>Tokens on failures</th>
                <th scope="col" className={`${TH} w-1/4`}><span className="sr-only">Relative size</span></th>
                <th scope="col" className={`${TH} text-right`}>Failed attempts</th>
                <th scope="col" className={`${TH} text-right`}>Sessions</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {rows.map((r) => (
                <tr key={`${r.tool}\u0000${r.failureClass}`} data-testid="tool-class-row" data-tool={r.tool} data-class={r.failureClass}>
                  <th scope="row" className={`${TD} max-w-64 break-all text-left font-normal`}>
                    <SegmentLink project={project} window={window} tool={r.tool} failureClass={r.failureClass}>
                      {r.tool || UNKNOWN_TOOL}
                    </SegmentLink>
                  </th>
                  <td className={TD}>
                    <FailureClassBadge failureClass={r.failureClass} />
                  </td>
                  <td className={`${NUM} font-medium text-amber-700`}>{formatInt(r.failedTokens)}</td>
                  <td className={TD}>
                    <Bar value={r.failedTokens} max={max} color={classStyle(r.failureClass).color} />
                  </td>
                  <td className={NUM}>{formatInt(r.failedAttempts)}</td>
                  <td className={NUM}>{formatInt(r.sessions)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}

/** The tool's attempts in the window, each counted by its session's sampling weight: an estimate. */
const EXHAUSTION_ATTEMPTS_HELP =
  'Every attempt of the tool in this range, of its exhausted calls and of all its others, scaled back up by sampling weight (a clean session kept at 1 in 4 counts 4 times): an estimate. Exhausted calls are exact (a session with a failure is always kept).';

/** Tools ranked by calls that ran out of a retry budget, each class a link. */
export async function ExhaustionPanel({ project, window }: PanelProps) {
  const rows = await heavyRead((d) => getRetryExhaustion(d, project, window));
  const max = rows[0]?.exhausted ?? 0;
  return (
    <Card id="exhaustion" title="Retry exhaustion by tool" subtitle="Tool calls that ran out of a retry budget, by the class of their last failure.">
      {rows.length === 0 ? (
        <Empty>No tool call ran out of a budget in this range.</Empty>
      ) : (
        <table className="min-w-full divide-y divide-slate-200 text-sm">
          <caption className="sr-only">Tools ranked by retry-exhausted calls</caption>
          <thead>
            <tr>
              <th scope="col" className={TH}>Tool</th>
              <th scope="col" className={`${TH} text-right`}>Exhausted calls</th>
              <th scope="col" className={`${TH} w-1/4`}><span className="sr-only">Relative size</span></th>
              <th scope="col" className={`${TH} text-right`} title={EXHAUSTION_ATTEMPTS_HELP} data-testid="exhaustion-attempts-header">
                Attempts (est.), all calls
              </th>
              <th scope="col" className={TH}>By class</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {rows.map((r) => (
              <tr key={r.tool} data-testid="exhaustion-row" data-tool={r.tool}>
                <th scope="row" className={`${TD} max-w-64 break-all text-left font-medium`}>{r.tool || UNKNOWN_TOOL}</th>
                <td className={NUM}>{formatInt(r.exhausted)}</td>
                <td className={TD}>
                  <Bar value={r.exhausted} max={max} color="#57534e" />
                </td>
                <td className={NUM}>{formatInt(r.attempts)}</td>
                <td className={TD}>
                  <ul className="flex flex-wrap gap-x-3 gap-y-1">
                    {r.byClass.map((c) => (
                      <li key={c.failureClass || '-'} className="text-xs">
                        <SegmentLink project={project} window={window} tool={r.tool} failureClass={c.failureClass}>
                          {c.failureClass ? classStyle(c.failureClass).label : 'no class'}
                        </SegmentLink>{' '}
                        <span className="tabular-nums text-slate-500">×{formatInt(c.exhausted)}</span>
                      </li>
                    ))}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}

/** What "Fixed next" counts (README, "Analytics"): shown under the panel's title and on its column. */
const FIXED_NEXT_HELP =
  'Fixed next: the share whose correction succeeded at once: the same call\'s next attempt, or else the first call the model made after its repair turn (the replay\'s "corrected call" link), whatever its call id or tool name.';

/** Share of rejections fixed by their correction, per tool, class and feedback template. */
export async function RejectionPanel({ project, window }: PanelProps) {
  const rows = await heavyRead((d) => getRejectionEffectiveness(d, project, window));
  return (
    <Card
      id="rejections"
      title="Rejection effectiveness"
      subtitle={`Failed attempts whose feedback went back to the model (rejected with feedback, replanned, or a failed tool call another instrumentation recorded), per tool, class and feedback template (quoted values and numbers masked). ${FIXED_NEXT_HELP}`}
    >
      {rows.length === 0 ? (
        <Empty>No rejections in this range.</Empty>
      ) : (
        <div className="overflow-x-auto">
          <table className="min-w-full divide-y divide-slate-200 text-sm">
            <caption className="sr-only">Rejections and the share their correction fixed</caption>
            <thead>
              <tr>
                <th scope="col" className={TH}>Tool</th>
                <th scope="col" className={TH}>Failure class</th>
                <th scope="col" className={TH}>Feedback template</th>
                <th scope="col" className={`${TH} text-right`}>Rejections</th>
                <th scope="col" className={`${TH} text-right`} title={FIXED_NEXT_HELP} data-testid="fixed-next-header">
                  Fixed next
                </th>
                <th scope="col" className={`${TH} w-1/6`}><span className="sr-only">Share fixed, as a bar</span></th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {rows.map((r) => (
                <tr key={`${r.tool}\u0000${r.failureClass}\u0000${r.template}`} data-testid="rejection-row" data-tool={r.tool} data-class={r.failureClass}>
                  <th scope="row" className={`${TD} max-w-48 break-all text-left font-normal`}>
                    <SegmentLink project={project} window={window} tool={r.tool} failureClass={r.failureClass}>
                      {r.tool || UNKNOWN_TOOL}
                    </SegmentLink>
                  </th>
                  <td className={TD}>{r.failureClass ? <FailureClassBadge failureClass={r.failureClass} /> : '—'}</td>
                  <td className={`${TD} max-w-md break-words font-mono text-xs text-slate-700`}>{r.template || '(no feedback)'}</td>
                  <td className={NUM}>{formatInt(r.rejections)}</td>
                  <td className={`${NUM} font-medium`}>{pct(r.fixed, r.rejections)}</td>
                  <td className={TD}>
                    <Bar value={r.fixed} max={r.rejections} color={SUCCESS_COLOR} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}

/** Each failure class's share of the tokens spent on failed attempts: a stacked bar of links, and the same as a table. */
export async function ClassSharePanel({ project, window }: PanelProps) {
  const rows = await heavyRead((d) => getClassShares(d, project, window));
  // The share of the window's tokens on failed attempts (every class, by the attempt's day): the
  // same population above and below the line. The sessions' total tokens (the cards) count the
  // sessions started in the window, so a session started before it, failing inside it, put
  // the share of those over 100% (the seed's 6,900-span session, begun a minute before the window: hundreds of times over).
  const total = rows.reduce((n, r) => n + r.failedTokens, 0);
  const withTokens = rows.filter((r) => r.failedTokens > 0);
  return (
    <Card
      id="class-share"
      title="Token share per failure class"
      subtitle="Each class's share of the tokens spent on failed attempts in this range (model turns that repaired them, by the attempt's UTC day, scaled by sampling weight): the classes add up to 100%."
    >
      {rows.length === 0 ? (
        <Empty>No failed attempts in this range.</Empty>
      ) : (
        <>
          {withTokens.length > 0 && total > 0 ? (
            <div className="mb-4 flex h-6 w-full overflow-hidden rounded bg-slate-100" aria-hidden="true">
              {withTokens.map((r) => (
                <Link
                  key={r.failureClass}
                  href={explorerHref(project, { failureClass: r.failureClass, failedDays: window })}
                  tabIndex={-1}
                  title={`${classStyle(r.failureClass).label}: ${pct(r.failedTokens, total)}`}
                  style={{ width: `${(100 * r.failedTokens) / total}%`, backgroundColor: classStyle(r.failureClass).color }}
                />
              ))}
            </div>
          ) : null}
          <table className="min-w-full divide-y divide-slate-200 text-sm">
            <caption className="sr-only">Tokens spent on failed attempts per failure class and their share of all tokens spent on failed attempts</caption>
            <thead>
              <tr>
                <th scope="col" className={TH}>Failure class</th>
                <th scope="col" className={`${TH} text-right`}>Tokens on failures</th>
                <th scope="col" className={`${TH} text-right`}>Share of failure tokens</th>
                <th scope="col" className={`${TH} text-right`}>Failed attempts</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {rows.map((r) => (
                <tr key={r.failureClass} data-testid="class-row" data-class={r.failureClass}>
                  <th scope="row" className={`${TD} text-left font-normal`}>
                    <SegmentLink project={project} window={window} failureClass={r.failureClass}>
                      {classStyle(r.failureClass).label}
                    </SegmentLink>
                  </th>
                  <td className={`${NUM} text-amber-700`}>{formatInt(r.failedTokens)}</td>
                  <td className={`${NUM} font-medium`} data-testid="class-share">{pct(r.failedTokens, total)}</td>
                  <td className={NUM}>{formatInt(r.failedAttempts)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Card>
  );
}
