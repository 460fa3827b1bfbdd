import { allows, PRICES_CHECKED, type Role } from '@guardtrace/db';
import { db } from '@/server/db';
import { getModelPrices } from '@/server/queries/prices';
import { deleteModelPrice } from './prices-actions';
import { ModelPriceForm } from './prices-forms';

const TH = 'whitespace-nowrap px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-500';
const NUM = 'px-3 py-2 text-right tabular-nums';
const usd = (n: number) => `$${n}`;

/** Settings > Model prices: the prices every cost figure uses, with their source, and this project's own. */
export async function PricesPanel({ project, role }: { project: string; role: Role }) {
  const rows = await getModelPrices(db(), project);
  const canEdit = allows(role, 'managePrices');
  return (
    <div>
      <p className="mb-4 max-w-3xl text-sm text-slate-600">
        Built-in prices were copied from the providers' published price pages (standard tier) on {PRICES_CHECKED}; every
        dollar figure is an estimate from them. A project price replaces the built-in one (or prices a model the table lacks)
        in every figure at once. Model names match without a provider prefix or release date: <code>gpt-4o-2024-08-06</code>{' '}
        is priced as <code>gpt-4o</code>.
      </p>
      {canEdit ? <ModelPriceForm project={project} /> : null}
      <div className="mt-5 overflow-x-auto">
        <table className="min-w-full divide-y divide-slate-200 text-sm" data-testid="model-prices">
          <caption className="sr-only">Prices per model in US dollars per million tokens</caption>
          <thead>
            <tr>
              <th scope="col" className={TH}>Model</th>
              <th scope="col" className={`${TH} text-right`}>Input $ / 1M</th>
              <th scope="col" className={`${TH} text-right`}>Cached input $ / 1M</th>
              <th scope="col" className={`${TH} text-right`}>Output $ / 1M</th>
              <th scope="col" className={TH}>Source</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {rows.map((r) => (
              <tr key={r.model} data-testid="model-price-row" data-model={r.model} data-own={r.source ? undefined : 'true'}>
                <th scope="row" className="px-3 py-2 text-left font-mono font-normal">{r.model}</th>
                <td className={NUM}>{usd(r.inputPerMTok)}</td>
                <td className={NUM}>{usd(r.cachedInputPerMTok)}</td>
                <td className={NUM}>{usd(r.outputPerMTok)}</td>
                <td className="px-3 py-2 text-xs text-slate-600">
                  {r.source ? (
                    <>
                      <a href={r.source.url} className="text-indigo-700 underline" rel="noreferrer">
                        {new URL(r.source.url).hostname}
                      </a>{' '}
                      as of {r.source.checked}
                    </>
                  ) : (
                    <span className="flex flex-wrap items-center gap-2">
                      <span className="font-medium text-slate-800">project price</span>
                      {r.builtIn ? <span>(built-in: {usd(r.builtIn.inputPerMTok)} / {usd(r.builtIn.cachedInputPerMTok)} / {usd(r.builtIn.outputPerMTok)})</span> : null}
                      {canEdit ? (
                        <form action={deleteModelPrice}>
                          <input type="hidden" name="project" value={project} />
                          <input type="hidden" name="model" value={r.model} />
                          <button type="submit" className="min-h-6 rounded border border-slate-300 px-2 py-1 text-xs text-slate-700 hover:bg-slate-50">
                            Remove <span className="sr-only">the project price of {r.model}</span>
                          </button>
                        </form>
                      ) : null}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
