'use client';

import { useActionState } from 'react';
import { BUTTON, INPUT, Message } from '@/app/projects/forms';
import type { ActionState } from '@/server/action-guard';
import { changeRoleAction, inviteAction, removeMemberAction } from './members-actions';

const INITIAL: ActionState = { ok: true, message: '' };
const ROLES = ['viewer', 'member', 'owner'] as const;

export function InviteForm({ project }: { project: string }) {
  const [state, action, pending] = useActionState(inviteAction, INITIAL);
  return (
    <form action={action} data-testid="invite-form">
      <input type="hidden" name="project" value={project} />
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor="invite-role" className="text-sm text-slate-700">
          Invite as
        </label>
        <select id="invite-role" name="role" defaultValue="member" className={INPUT}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <button type="submit" className={BUTTON} disabled={pending}>
          Create invitation link
        </button>
      </div>
      <Message state={state} />
      {state.key ? (
        <code className="mt-2 block break-all rounded-md bg-slate-900 px-3 py-2 font-mono text-xs text-emerald-300" data-testid="invitation-link">
          {state.key}
        </code>
      ) : null}
    </form>
  );
}

export function MemberControls({ project, user, role, email }: { project: string; user: string; role: string; email: string }) {
  const [roleState, roleAction, rolePending] = useActionState(changeRoleAction, INITIAL);
  const [removeState, removeAction, removePending] = useActionState(removeMemberAction, INITIAL);
  return (
    <div className="flex flex-wrap items-center justify-end gap-2">
      <form action={roleAction} className="flex items-center gap-2" data-testid="role-form">
        <input type="hidden" name="project" value={project} />
        <input type="hidden" name="user" value={user} />
        <label className="sr-only" htmlFor={`role-${user}`}>
          Role of {email}
        </label>
        <select id={`role-${user}`} name="role" defaultValue={role} className={INPUT}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <button type="submit" className={BUTTON} disabled={rolePending}>
          Change role
        </button>
      </form>
      <form action={removeAction} data-testid="remove-member-form">
        <input type="hidden" name="project" value={project} />
        <input type="hidden" name="user" value={user} />
        <button type="submit" className="rounded-md border border-red-300 px-3 py-1.5 text-sm text-red-700 hover:bg-red-50" disabled={removePending}>
          Remove
        </button>
      </form>
      <Message state={roleState.message ? roleState : removeState} />
    </div>
  );
}
