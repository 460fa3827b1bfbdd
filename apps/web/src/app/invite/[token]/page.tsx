import type { Metadata } from 'next';
import Link from 'next/link';
import { peekInvitation } from '@guardtrace/db';
import { AuthCard } from '@/components/auth-card';
import { currentAccount } from '@/server/accounts';
import { db } from '@/server/db';
import { acceptInvite } from './actions';

export const metadata: Metadata = { title: 'Invitation' };

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const invitation = await peekInvitation(db(), token);
  if (!invitation) {
    return (
      <AuthCard title="Invitation">
        <p className="text-sm text-slate-700" role="alert">
          This invitation link is unknown, used, revoked or expired: each link works once. Ask the project owner for a new one.
        </p>
      </AuthCard>
    );
  }
  const account = await currentAccount();
  const here = `/invite/${encodeURIComponent(token)}`;
  return (
    <AuthCard title={`Join ${invitation.projectName}`}>
      <p className="text-sm text-slate-700">
        You are invited to <strong>{invitation.projectName}</strong> as <strong data-testid="invited-role">{invitation.role}</strong>.
      </p>
      {account ? (
        <form action={acceptInvite} className="mt-4">
          <input type="hidden" name="token" value={token} />
          <p className="mb-3 text-xs text-slate-500">Signed in as {account.email}.</p>
          <button type="submit" className="w-full rounded-md bg-slate-900 px-3 py-2 text-sm font-medium text-white hover:bg-slate-700">
            Join project
          </button>
        </form>
      ) : (
        <div className="mt-4 flex gap-3 text-sm">
          <Link href={`/sign-up?invitation=${encodeURIComponent(token)}`} className="rounded-md bg-slate-900 px-3 py-2 font-medium text-white">
            Create an account
          </Link>
          <Link href={`/sign-in?next=${encodeURIComponent(here)}`} className="rounded-md border border-slate-300 px-3 py-2 font-medium">
            Sign in
          </Link>
        </div>
      )}
    </AuthCard>
  );
}
