import type { Metadata } from 'next';
import { AuthCard } from '@/components/auth-card';
import { AuthForm } from '@/components/auth-form';
import { first, type RawSearchParams } from '@/lib/search-params';

export const metadata: Metadata = { title: 'Sign in' };

const ERRORS: Record<string, string> = {
  link: 'That sign-in link is unknown, used or expired: links work once. Ask for a new one (see docs/deployment.md).',
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const sp = await searchParams;
  const error = ERRORS[first(sp.error) ?? ''];
  return (
    <AuthCard title="Sign in">
      {error ? (
        <p className="mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900" role="alert">
          {error}
        </p>
      ) : null}
      <AuthForm mode="sign-in" next={first(sp.next)} />
      <p className="mt-4 text-xs text-slate-500">New here? Accounts are made from an invitation link a project owner gives you.</p>
    </AuthCard>
  );
}
