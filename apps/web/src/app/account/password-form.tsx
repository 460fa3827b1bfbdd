'use client';

import { useActionState } from 'react';
import type { ActionState } from '@/server/action-guard';
import { setPasswordAction } from '@/server/account-actions';

const INITIAL: ActionState = { ok: true, message: '' };
const INPUT =
  'mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500';
const LABEL = 'block text-sm font-medium text-slate-800';

/** Sets a first password or changes the current one (setPasswordAction); the fields clear after each try. */
export function PasswordForm({ hasPassword }: { hasPassword: boolean }) {
  const [state, action, pending] = useActionState(setPasswordAction, INITIAL);
  return (
    <form action={action} className="space-y-4" data-testid="password-form">
      {hasPassword ? (
        <label className={LABEL}>
          Current password
          <input name="currentPassword" type="password" autoComplete="current-password" required className={INPUT} />
        </label>
      ) : null}
      <label className={LABEL}>
        New password
        <input name="newPassword" type="password" autoComplete="new-password" minLength={12} maxLength={256} required className={INPUT} />
      </label>
      <label className={LABEL}>
        New password again
        <input name="confirmPassword" type="password" autoComplete="new-password" minLength={12} maxLength={256} required className={INPUT} />
      </label>
      <p className="text-xs text-slate-500">12 characters at least; a few words make a good one.</p>
      {state.message ? (
        <p className={`text-sm ${state.ok ? 'text-emerald-700' : 'text-red-700'}`} role={state.ok ? 'status' : 'alert'}>
          {state.message}
        </p>
      ) : null}
      <button
        type="submit"
        disabled={pending}
        className="rounded-md bg-slate-900 px-3 py-2 text-sm font-medium text-white hover:bg-slate-700 disabled:cursor-wait disabled:opacity-60"
      >
        {hasPassword ? 'Change password' : 'Set password'}
      </button>
    </form>
  );
}
