import type { Metadata } from 'next';
import Link from 'next/link';
import { peekInvitation } from '@guardtrace/db';
import { AuthCard } from '@/components/auth-card';
import { AuthForm } from '@/components/auth-form';
import { accountsEnv } from '@/env';
import { first, type RawSearchParams } from '@/lib/search-params';
import { db } from '@/server/db';

export const metadata: Metadata = { title: 'Create an account' };

export default async function SignUpPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const token = first((await searchParams).invitation);
  const invitation = token ? await peekInvitation(db(), token) : null;
  if (!invitation && accountsEnv().GUARDTRACE_SIGNUP !== 'open') {
    return (
      <AuthCard title="Create an account">
        <p className="text-sm text-slate-700" role="alert">
          {token ? 'This invitation link is unknown, used, revoked or expired.' : 'Accounts are made from an invitation link.'} Ask a project owner for a
          new one, or <Link href="/sign-in" className="text-indigo-700 underline">sign in</Link>.
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Create an account">
      {invitation ? (
        <p className="mb-4 text-sm text-slate-600">
          Then join <strong>{invitation.projectName}</strong> as {invitation.role}.
        </p>
      ) : null}
      <AuthForm mode="sign-up" invitation={token} next={token ? `/invite/${encodeURIComponent(token)}` : '/projects'} />
      <p className="mt-4 text-xs text-slate-500">
        Have an account? <Link href={token ? `/sign-in?next=${encodeURIComponent(`/invite/${token}`)}` : '/sign-in'} className="text-indigo-700 underline">Sign in</Link>
      </p>
    </AuthCard>
  );
}
