import { allows, type Role } from '@guardtrace/db';
import type { Metadata } from 'next';
import Link from 'next/link';
import { Suspense } from 'react';
import { PageTitle, Shell } from '@/components/shell';
import { TableSkeleton } from '@/components/skeletons';
import { formatDateTime } from '@/lib/format';
import type { RawSearchParams } from '@/lib/search-params';
import { requireAccount } from '@/server/accounts';
import { selectProject } from '@/server/context';
import { db } from '@/server/db';
import { getProjectSettings } from '@/server/queries/settings';
import { revokeKey } from './actions';
import { CreateKeyForm, RetentionForm, RevokeButton, SampleRateForm } from './forms';
import { MembersPanel } from './members';
import { PricesPanel } from './prices';

export const metadata: Metadata = { title: 'Settings' };

function Card({ title, children, subtitle }: { title: string; subtitle: string; children: React.ReactNode }) {
  return (
    <section className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <h2 className="text-sm font-semibold text-slate-900">{title}</h2>
      <p className="mt-0.5 max-w-2xl text-sm text-slate-600">{subtitle}</p>
      <div className="mt-4">{children}</div>
    </section>
  );
}

async function SettingsPanels({ project, role, me }: { project: string; role: Role; me: string }) {
  const settings = await getProjectSettings(db(), project);
  if (!settings) return null;
  const TH = 'whitespace-nowrap px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-500';
  return (
    <div className="space-y-6">
      <Card
        title="Sampling"
        subtitle="SDKs keep every session with a failure, escalation or budget hit, and this share of clean sessions (decided per session id). Charts scale kept sessions back up by their sampling weight."
      >
        {allows(role, 'manageSampling') ? (
          <SampleRateForm project={settings.id} rate={settings.cleanSampleRate} />
        ) : (
          <p className="text-sm" data-testid="sample-rate">
            {Math.round(settings.cleanSampleRate * 1000) / 10}% of clean sessions kept
          </p>
        )}
      </Card>
      <Card
        title="Retention"
        subtitle="The collector deletes a session with all its spans and rows this many days after it ended (checked hourly). Empty: the collector's default (GUARDTRACE_RETENTION_DAYS; unset there, sessions are kept)."
      >
        <RetentionForm project={settings.id} days={settings.retentionDays} />
      </Card>
      <Card title="Model prices" subtitle="US dollars per million tokens, by model: what every estimated cost (replay, sessions, analytics) is priced at.">
        <PricesPanel project={settings.id} role={role} />
      </Card>
      <Card
        title="Alerts"
        subtitle="Webhooks when a failure class spikes, calls escalate or exhaust their budgets, rejections go unfixed, repairs cost too much, or a new failure class or failing tool appears."
      >
        <Link href={`/settings/alerts?project=${settings.id}`} className="text-sm text-indigo-700 hover:underline">
          Alert rules →
        </Link>
      </Card>
      <Card
        title="API keys"
        subtitle="Agents send OTLP traces with a key of this project (Authorization: Bearer <key>). Keys are stored hashed and shown once."
      >
        {allows(role, 'manageKeys') ? <CreateKeyForm project={settings.id} /> : null}
        {settings.keys.length ? (
          <table className="mt-5 min-w-full divide-y divide-slate-200 text-sm" data-testid="api-keys">
            <thead>
              <tr>
                <th className={TH}>Name</th>
                <th className={TH}>Key</th>
                <th className={TH}>Created</th>
                <th className={TH}>Last used</th>
                <th className={TH}>Status</th>
                <th className={TH} aria-label="Actions" />
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {settings.keys.map((k) => (
                <tr key={k.id} data-testid="api-key-row" className={k.revokedAt ? 'text-slate-500' : ''}>
                  <td className="px-3 py-2.5 font-medium">{k.name}</td>
                  <td className="px-3 py-2.5 font-mono text-xs">{k.prefix}…</td>
                  <td className="whitespace-nowrap px-3 py-2.5">{formatDateTime(k.createdAt)}</td>
                  <td className="whitespace-nowrap px-3 py-2.5">{k.lastUsedAt ? formatDateTime(k.lastUsedAt) : 'never'}</td>
                  <td className="px-3 py-2.5">
                    {k.revokedAt ? (
                      <span className="text-xs">revoked {formatDateTime(k.revokedAt)}</span>
                    ) : (
                      <span className="rounded-md bg-emerald-50 px-2 py-0.5 text-xs font-medium text-emerald-800 ring-1 ring-emerald-200 ring-inset">
                        active
                      </span>
                    )}
                  </td>
                  <td className="px-3 py-2.5 text-right">
                    {k.revokedAt || !allows(role, 'manageKeys') ? null : (
                      <form action={revokeKey}>
                        <input type="hidden" name="project" value={settings.id} />
                        <input type="hidden" name="key" value={k.id} />
                        <RevokeButton name={k.name} />
                      </form>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="mt-4 text-sm text-slate-500">No keys yet.</p>
        )}
      </Card>
      <Card title="Members" subtitle="Viewers read; members also manage keys and sampling; owners also manage members and the project.">
        <MembersPanel project={settings.id} role={role} me={me} />
      </Card>
    </div>
  );
}

export default async function SettingsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const selection = await selectProject(await searchParams);
  const project = selection.current?.id ?? '';
  const account = await requireAccount();
  return (
    <Shell selection={selection} section="settings">
      <PageTitle title="Settings" subtitle={`Project ${selection.current?.name ?? ''} · ${project}`} />
      <Suspense key={project} fallback={<TableSkeleton rows={4} />}>
        {selection.current ? <SettingsPanels project={project} role={selection.current.role} me={account.id} /> : null}
      </Suspense>
    </Shell>
  );
}
