'use client';

import { type FormEvent, useState } from 'react';
import { INVITATION_HEADER } from '@/lib/auth-headers';

const INPUT =
  'mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500';

/** Only a path of this site: `?next=` must not send anyone elsewhere after signing in. */
function safeNext(next: string | undefined): string {
  return next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/sessions';
}

/**
 * Signs in or up through better-auth's endpoints (POST /api/auth/sign-in/email,
 * /api/auth/sign-up/email), so the per-IP throttle applies; the session cookie comes back
 * HttpOnly, and the page moves on to `next`.
 */
export function AuthForm({ mode, next, invitation }: { mode: 'sign-in' | 'sign-up'; next?: string; invitation?: string }) {
  const [error, setError] = useState('');
  const [pending, setPending] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setError('');
    setPending(true);
    const form = new FormData(e.currentTarget);
    const body: Record<string, string> = { email: String(form.get('email') ?? ''), password: String(form.get('password') ?? '') };
    if (mode === 'sign-up') body.name = String(form.get('name') ?? '');
    try {
      const res = await fetch(`/api/auth/${mode}/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(invitation ? { [INVITATION_HEADER]: invitation } : {}) },
        body: JSON.stringify(body),
      });
      if (res.ok) {
        window.location.assign(safeNext(next));
        return;
      }
      const answer = (await res.json().catch(() => ({}))) as { message?: string };
      setError(
        res.status === 429
          ? (answer.message ?? 'Too many attempts: wait a minute and try again.')
          : (answer.message ?? `Failed (${res.status}).`),
      );
    } catch {
      setError('The server did not answer: check the connection and try again.');
    }
    setPending(false);
  }

  return (
    <form onSubmit={submit} className="space-y-4" data-testid={`${mode}-form`}>
      {mode === 'sign-up' ? (
        <label className="block text-sm font-medium text-slate-800">
          Name
          <input name="name" autoComplete="name" required maxLength={100} className={INPUT} />
        </label>
      ) : null}
      <label className="block text-sm font-medium text-slate-800">
        Email
        <input name="email" type="email" autoComplete="email" required className={INPUT} />
      </label>
      <label className="block text-sm font-medium text-slate-800">
        Password
        <input
          name="password"
          type="password"
          autoComplete={mode === 'sign-in' ? 'current-password' : 'new-password'}
          minLength={mode === 'sign-up' ? 12 : undefined}
          required
          className={INPUT}
        />
      </label>
      {mode === 'sign-up' ? <p className="text-xs text-slate-500">12 characters at least; a few words make a good one.</p> : null}
      {error ? (
        <p className="text-sm text-red-700" role="alert">
          {error}
        </p>
      ) : null}
      <button
        type="submit"
        disabled={pending}
        className="w-full rounded-md bg-slate-900 px-3 py-2 text-sm font-medium text-white hover:bg-slate-700 disabled:cursor-wait disabled:opacity-60"
      >
        {mode === 'sign-in' ? 'Sign in' : 'Create account'}
      </button>
    </form>
  );
}
