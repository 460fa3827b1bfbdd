import { estimateCost, PRICES_CHECKED } from '@guardtrace/db';
import Link from 'next/link';
import { formatCost, formatUsd } from '@/lib/cost';
import { explorerHref } from '@/lib/explorer-link';
import { classStyle } from '@/lib/failure-classes';
import { hrefWith } from '@/lib/search-params';
import { db, heavyRead } from '@/server/db';
import type { DayWindow } from '@/server/queries/analytics';
import { type CostDto, getRepairCosts, getWindowSpend, priceBookOf } from '@/server/queries/costs';
import { Bar, Card, Empty, NUM, TD, TH } from './card';
import { sessionCosts } from './session-costs';

interface PanelProps {
  project: string;
  window: DayWindow;
}

const LINK = 'font-medium text-slate-900 underline decoration-slate-300 underline-offset-2 hover:decoration-slate-700';
const UNKNOWN_TOOL = '(no stored attempt)';

/** Rows by estimated dollars, most first (then name). */
const ranked = (m: Map<string, CostDto>) => [...m].sort((a, b) => b[1].usd - a[1].usd || a[0].localeCompare(b[0]));

function CostTable({
  caption,
  head,
  rows,
  label,
  testId,
}: {
  caption: string;
  head: string;
  rows: [string, CostDto][];
  label: (key: string) => React.ReactNode;
  testId: string;
}) {
  const max = rows[0]?.[1].usd ?? 0;
  return (
    <table className="min-w-full divide-y divide-slate-200 text-sm">
      <caption className="sr-only">{caption}</caption>
      <thead>
        <tr>
          <th scope="col" className={TH}>{head}</th>
          <th scope="col" className={`${TH} text-right`}>Repair cost</th>
          <th scope="col" className={`${TH} w-1/4`}><span className="sr-only">Relative size</span></th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {rows.map(([k, c]) => (
          <tr key={k} data-testid={testId} data-key={k}>
            <th scope="row" className={`${TD} max-w-48 break-all text-left font-normal`}>{label(k)}</th>
            <td className={`${NUM} font-medium text-amber-800`} data-testid="repair-cost">{formatCost(c)}</td>
            <td className={TD}>
              <Bar value={c.usd} max={max} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * What repairing failed calls cost in dollars: the model turns that repaired failed attempts,
 * priced per model at the project's prices, per failure class and per tool.
 */
export async function RepairCostPanel({ project, window }: PanelProps) {
  // Prices are set in Settings: from the primary (read-your-writes); the token rollups are heavy reads.
  const book = await priceBookOf(db(), project);
  const [costs, spend, sessions] = await Promise.all([
    heavyRead((d) => getRepairCosts(d, project, window, book)),
    heavyRead((d) => getWindowSpend(d, project, window, book)),
    sessionCosts(project, window),
  ]);
  const total = estimateCost([], book);
  for (const c of costs.byClass.values()) {
    total.usd += c.usd;
    total.pricedTokens += c.pricedTokens;
    total.unknownModels = [...new Set([...total.unknownModels, ...c.unknownModels])].sort();
  }
  return (
    <Card
      id="repair-cost"
      title="What repairs cost in dollars"
      subtitle={`The model turns that repaired failed attempts (scaled by sampling weight), priced per model: estimates from the project's prices (Settings > Model prices; built-in prices from the providers' pages as of ${PRICES_CHECKED}).`}
    >
      <p className="mb-4 text-sm text-slate-700">
        All model calls of the sessions started in this range{' '}
        <span className="font-semibold text-slate-900" data-testid="spend-total">
          {formatCost(spend)}
        </span>
        {sessions.estimatedSessions > 0 && spend.pricedTokens > 0 ? (
          <span data-testid="spend-per-session">
            {' '}
            · ≈ {formatUsd(spend.usd / sessions.estimatedSessions)} per session{spend.unknownModels.length ? ' (priced models only)' : ''}
          </span>
        ) : null}
      </p>
      {costs.byClass.size === 0 ? (
        <Empty>No repair turns in this range (turns that name the failure they repair: Guardtrace&apos;s SDK marks them, other instrumentations do not).</Empty>
      ) : (
        <>
          <p className="mb-4 text-sm text-slate-700">
            Repair turns of the failed attempts made in this range (whenever their session started){' '}
            <span className="font-semibold text-slate-900" data-testid="repair-cost-total">{formatCost(total)}</span>{' '}
            <Link href={hrefWith('/settings', { project })} className="text-xs text-indigo-700 underline">
              prices
            </Link>
          </p>
          <div className="grid gap-6 lg:grid-cols-2">
            <CostTable
              caption="Estimated dollars of repair turns per failure class"
              head="Failure class"
              rows={ranked(costs.byClass)}
              testId="repair-cost-class"
              label={(k) =>
                k ? (
                  <Link href={explorerHref(project, { failureClass: k, failedDays: window })} className={LINK}>
                    {classStyle(k).label}
                  </Link>
                ) : (
                  'no class'
                )
              }
            />
            <CostTable
              caption="Estimated dollars of repair turns per tool"
              head="Tool"
              rows={ranked(costs.byTool)}
              testId="repair-cost-tool"
              label={(k) =>
                k ? (
                  <Link href={explorerHref(project, { tool: k, failedDays: window })} className={LINK}>
                    {k}
                  </Link>
                ) : (
                  UNKNOWN_TOOL
                )
              }
            />
          </div>
        </>
      )}
    </Card>
  );
}
