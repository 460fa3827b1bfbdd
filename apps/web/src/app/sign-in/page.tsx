import { ownerHasPassword } from '@guardtrace/db';
import type { Metadata } from 'next';
import { AuthCard } from '@/components/auth-card';
import { AuthForm } from '@/components/auth-form';
import { first, type RawSearchParams } from '@/lib/search-params';
import { db } from '@/server/db';

export const metadata: Metadata = { title: 'Sign in' };

const ERRORS: Record<string, string> = {
  link: 'That sign-in link is unknown, used or expired: links work once, within 30 minutes. Get a new one as below, or ask an owner.',
};

const CODE = 'rounded bg-slate-100 px-1 py-0.5 font-mono text-[11px] text-slate-800 break-words';

/** How the install's owner gets in without a password: a new one-time link, from the command line. */
function NewLinkHelp() {
  return (
    <section className="mb-4 rounded-md border border-indigo-200 bg-indigo-50 px-3 py-3 text-xs text-slate-700" data-testid="sign-in-link-help">
      <h2 className="mb-1 text-sm font-semibold text-slate-900">First time here, or no password yet?</h2>
      <p className="mb-2">The owner signs in with a one-time link. To get a new one, run in the Guardtrace folder:</p>
      <ul className="mb-2 space-y-1.5">
        <li>
          Started with <code className={CODE}>npm start</code>: <code className={CODE}>npm run sign-in-link</code>
        </li>
        <li>
          On your own Postgres: <code className={CODE}>DATABASE_URL=postgres://… GUARDTRACE_BASE_URL=https://… pnpm sign-in-link</code>
        </li>
      </ul>
      <p>
        Add <code className={CODE}>--email you@example.com</code> for another account. Once signed in, set a password from the account
        menu (top right) to sign in here.
      </p>
    </section>
  );
}

/** The owner has a password (so anyone may sign in with one); null when the database does not answer (the form still shows). */
async function ownerCanUsePassword(): Promise<boolean | null> {
  try {
    return await ownerHasPassword(db());
  } catch {
    return null;
  }
}

export default async function SignInPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const sp = await searchParams;
  const error = ERRORS[first(sp.error) ?? ''];
  const help = error !== undefined || (await ownerCanUsePassword()) === false;
  return (
    <AuthCard title="Sign in">
      {error ? (
        <p className="mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900" role="alert">
          {error}
        </p>
      ) : null}
      {help ? <NewLinkHelp /> : null}
      <AuthForm mode="sign-in" next={first(sp.next)} />
      <p className="mt-4 text-xs text-slate-500">New here? Accounts are made from an invitation link a project owner gives you.</p>
    </AuthCard>
  );
}
