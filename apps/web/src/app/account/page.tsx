import { hasPassword } from '@guardtrace/db';
import type { Metadata } from 'next';
import { PageTitle, Shell } from '@/components/shell';
import type { RawSearchParams } from '@/lib/search-params';
import { requireAccount } from '@/server/accounts';
import { selectProject } from '@/server/context';
import { db } from '@/server/db';
import { PasswordForm } from './password-form';

export const metadata: Metadata = { title: 'Account' };

/** The signed-in account: its email, and its password (set one, or change it). */
export default async function AccountPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const selection = await selectProject(await searchParams);
  const account = await requireAccount();
  const has = await hasPassword(db(), account.id);
  return (
    <Shell selection={selection} section="account">
      <PageTitle title="Account" subtitle={<>Signed in as <span className="font-medium text-slate-800">{account.email}</span>.</>} />
      <section className="max-w-md rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        <h2 className="mb-1 text-sm font-semibold">{has ? 'Change password' : 'Set a password'}</h2>
        <p className="mb-4 text-sm text-slate-600" data-testid="password-state">
          {has
            ? 'You sign in with your email and password.'
            : 'You have no password yet: you came in by a one-time link. Set one to sign in with your email and password, in any browser.'}
        </p>
        <PasswordForm hasPassword={has} />
      </section>
    </Shell>
  );
}
