import { allows } from '@guardtrace/db';
import { ALERT_COMPARISONS, ALERT_KINDS, isNewKind, shownToolName } from '@guardtrace/db/alerts';
import type { Metadata } from 'next';
import Link from 'next/link';
import { PageTitle, Shell } from '@/components/shell';
import { formatDateTime } from '@/lib/format';
import type { RawSearchParams } from '@/lib/search-params';
import { selectProject } from '@/server/context';
import { db } from '@/server/db';
import { type AlertRuleDto, listAlertDeliveries, listAlertEvents, listAlertRules } from '@/server/queries/alerts';
import { muteAlertAction } from './actions';
import { AlertRuleForm, DeleteAlertButton, TestAlertButton } from './forms';

export const metadata: Metadata = { title: 'Alerts' };

const TH = 'whitespace-nowrap px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-500';
const TD = 'px-3 py-2.5';

/** A webhook URL's origin only: a Slack webhook's path is its secret. */
const origin = (url: string) => {
  try {
    return `${new URL(url).origin}/…`;
  } catch {
    return '…';
  }
};

function condition(r: AlertRuleDto): string {
  const k = ALERT_KINDS[r.kind];
  const tool = r.toolName && shownToolName(r.toolName);
  const scope = [r.failureClass && `class ${r.failureClass}`, tool && `tool ${tool}`].filter(Boolean).join(', ');
  const what = `${k.label}${scope ? ` (${scope})` : ''}`;
  if (isNewKind(r.kind)) return `${what} within ${r.windowMinutes} min`;
  const unit = k.unit === '%' ? '%' : k.unit === 'USD' ? ' USD' : '';
  return `${what} ${ALERT_COMPARISONS[r.comparison]} ${r.threshold}${unit} over ${r.windowMinutes} min`;
}

function StateBadge({ r }: { r: AlertRuleDto }) {
  const [text, tone] = r.muted
    ? ['muted', 'bg-slate-100 text-slate-700 ring-slate-300']
    : r.state === 'firing'
      ? ['firing', 'bg-red-50 text-red-800 ring-red-200']
      : ['ok', 'bg-emerald-50 text-emerald-800 ring-emerald-200'];
  return (
    <span className={`rounded-md px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${tone}`} data-testid="alert-state">
      {text}
      {r.muted && r.state === 'firing' ? ' (firing)' : ''}
      {r.firingSubjects.length ? `: ${r.firingSubjects.join(', ')}` : ''}
    </span>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <h2 className="text-sm font-semibold text-slate-900">{title}</h2>
      <div className="mt-3 overflow-x-auto">{children}</div>
    </section>
  );
}

/** Settings > Alerts: rules with their state, the latest firings and the webhook delivery log. */
export default async function AlertsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const selection = await selectProject(await searchParams);
  const current = selection.current;
  const project = current?.id ?? '';
  const canEdit = current ? allows(current.role, 'manageAlerts') : false;
  const [rules, events, deliveries] = current
    ? await Promise.all([listAlertRules(db(), project), listAlertEvents(db(), project), listAlertDeliveries(db(), project)])
    : [[], [], []];
  return (
    <Shell selection={selection} section="settings">
      <PageTitle
        title="Alerts"
        subtitle="Rules on failures, escalations, exhaustion, unfixed rejections and repair cost, evaluated by the collector once a minute (GUARDTRACE_ALERTS_INTERVAL_SECONDS); each firing and resolution is POSTed to a webhook, signed (X-Guardtrace-Signature)."
      />
      <p className="mb-4 text-sm">
        <Link href={`/settings?project=${project}`} className="text-indigo-700 hover:underline">
          ← Settings
        </Link>
      </p>
      <div className="space-y-6">
        {canEdit ? (
          <Section title="New rule">
            <AlertRuleForm project={project} />
          </Section>
        ) : null}
        <Section title="Rules">
          {rules.length ? (
            <table className="min-w-full divide-y divide-slate-200 text-sm" data-testid="alert-rules">
              <thead>
                <tr>
                  <th scope="col" className={TH}>Rule</th>
                  <th scope="col" className={TH}>Condition</th>
                  <th scope="col" className={TH}>Webhook</th>
                  <th scope="col" className={TH}>State</th>
                  <th scope="col" className={TH}>Last fired</th>
                  {canEdit ? <th scope="col" className={TH}><span className="sr-only">Actions</span></th> : null}
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {rules.map((r) => (
                  <tr key={r.id} data-testid="alert-rule-row" data-rule={r.name}>
                    <th scope="row" className={`${TD} text-left font-medium`}>{r.name}</th>
                    <td className={TD}>{condition(r)}</td>
                    <td className={`${TD} font-mono text-xs`}>
                      {origin(r.webhookUrl)} ({r.format === 'slack' ? 'Slack' : 'JSON'})
                    </td>
                    <td className={TD}>
                      <StateBadge r={r} />
                    </td>
                    <td className={`${TD} whitespace-nowrap`}>{r.lastFiredAt ? formatDateTime(r.lastFiredAt) : 'never'}</td>
                    {canEdit ? (
                      <td className={`${TD} space-x-2 whitespace-nowrap text-right`}>
                        <TestAlertButton project={project} rule={r.id} name={r.name} />
                        <form action={muteAlertAction} className="inline">
                          <input type="hidden" name="project" value={project} />
                          <input type="hidden" name="rule" value={r.id} />
                          <input type="hidden" name="muted" value={r.muted ? 'false' : 'true'} />
                          <button type="submit" className="min-h-6 rounded border border-slate-300 px-2 py-1 text-xs text-slate-700 hover:bg-slate-50">
                            {r.muted ? 'Unmute' : 'Mute'} <span className="sr-only">{r.name}</span>
                          </button>
                        </form>
                        <DeleteAlertButton project={project} rule={r.id} name={r.name} />
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="text-sm text-slate-600">No alert rules yet.</p>
          )}
        </Section>
        <Section title="Recent firings">
          {events.length ? (
            <table className="min-w-full divide-y divide-slate-200 text-sm" data-testid="alert-events">
              <thead>
                <tr>
                  <th scope="col" className={TH}>When</th>
                  <th scope="col" className={TH}>Rule</th>
                  <th scope="col" className={TH}>Event</th>
                  <th scope="col" className={`${TH} text-right`}>Value</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {events.map((e) => (
                  <tr key={e.id} data-testid="alert-event" data-kind={e.kind}>
                    <td className={`${TD} whitespace-nowrap`}>{formatDateTime(e.at)}</td>
                    <td className={TD}>{e.ruleName}</td>
                    <td className={TD}>
                      {e.kind}
                      {e.subject ? `: ${e.subject}` : ''}
                    </td>
                    <td className={`${TD} text-right tabular-nums`}>{Math.round(e.value * 10_000) / 10_000}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="text-sm text-slate-600">Nothing has fired yet.</p>
          )}
        </Section>
        <Section title="Delivery log">
          {deliveries.length ? (
            <table className="min-w-full divide-y divide-slate-200 text-sm" data-testid="alert-deliveries">
              <thead>
                <tr>
                  <th scope="col" className={TH}>Rule</th>
                  <th scope="col" className={TH}>Event</th>
                  <th scope="col" className={TH}>Status</th>
                  <th scope="col" className={`${TH} text-right`}>Attempts</th>
                  <th scope="col" className={TH}>Last answer</th>
                  <th scope="col" className={TH}>Last attempt</th>
                  <th scope="col" className={TH}>Next retry</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {deliveries.map((d) => (
                  <tr key={d.id} data-testid="alert-delivery" data-status={d.status}>
                    <td className={TD}>{d.ruleName}</td>
                    <td className={TD}>{d.eventKind}</td>
                    <td className={TD}>{d.status === 'cancelled' && d.lastError ? `cancelled (${d.lastError})` : d.status}</td>
                    <td className={`${TD} text-right tabular-nums`}>{d.attempts}</td>
                    <td className={TD}>{d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : d.status === 'cancelled' ? '—' : (d.lastError ?? '—')}</td>
                    <td className={`${TD} whitespace-nowrap`}>{d.lastAttemptAt ? formatDateTime(d.lastAttemptAt) : '—'}</td>
                    <td className={`${TD} whitespace-nowrap`}>{d.nextAttemptAt ? formatDateTime(d.nextAttemptAt) : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="text-sm text-slate-600">No deliveries yet.</p>
          )}
        </Section>
      </div>
    </Shell>
  );
}
