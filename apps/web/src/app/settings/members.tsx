import { allows, listInvitations, listMembers, type Role } from '@guardtrace/db';
import Link from 'next/link';
import { formatDateTime } from '@/lib/format';
import { db } from '@/server/db';
import { revokeInvitationAction } from './members-actions';
import { InviteForm, MemberControls } from './members-forms';

const TH = 'whitespace-nowrap px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-500';

function invitationState(i: { acceptedAt: Date | null; revokedAt: Date | null; expiresAt: Date }): string {
  if (i.acceptedAt) return `used ${formatDateTime(i.acceptedAt.toISOString())}`;
  if (i.revokedAt) return 'revoked';
  if (i.expiresAt.getTime() <= Date.now()) return 'expired';
  return `open until ${formatDateTime(i.expiresAt.toISOString())}`;
}

/** Members and invitations: everyone sees who is in; owners change roles, remove and invite. */
export async function MembersPanel({ project, role, me }: { project: string; role: Role; me: string }) {
  const owner = allows(role, 'manageMembers');
  const [members, invitations] = await Promise.all([listMembers(db(), project), owner ? listInvitations(db(), project) : []]);
  return (
    <div className="space-y-5">
      <table className="min-w-full divide-y divide-slate-200 text-sm" data-testid="members">
        <thead>
          <tr>
            <th className={TH}>Member</th>
            <th className={TH}>Role</th>
            <th className={TH}>Since</th>
            <th className={TH} aria-label="Actions" />
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {members.map((m) => (
            <tr key={m.userId} data-testid="member-row">
              <td className="px-3 py-2.5">
                {m.email}
                {m.userId === me ? <span className="ml-1 text-xs text-slate-500">(you)</span> : null}
              </td>
              <td className="px-3 py-2.5" data-testid="member-role">
                {m.role}
              </td>
              <td className="whitespace-nowrap px-3 py-2.5">{formatDateTime(m.since.toISOString())}</td>
              <td className="px-3 py-2.5">{owner ? <MemberControls project={project} user={m.userId} role={m.role} email={m.email} /> : null}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {owner ? (
        <>
          <InviteForm project={project} />
          {invitations.length ? (
            <ul className="divide-y divide-slate-100 text-sm" data-testid="invitations">
              {invitations.map((i) => (
                <li key={i.id} className="flex items-center justify-between gap-3 py-2">
                  <span>
                    {i.role} · created {formatDateTime(i.createdAt.toISOString())} · {invitationState(i)}
                  </span>
                  {!i.acceptedAt && !i.revokedAt && i.expiresAt.getTime() > Date.now() ? (
                    <form action={revokeInvitationAction}>
                      <input type="hidden" name="project" value={project} />
                      <input type="hidden" name="invitation" value={i.id} />
                      <button type="submit" className="text-sm text-red-700 hover:underline">
                        Revoke
                      </button>
                    </form>
                  ) : null}
                </li>
              ))}
            </ul>
          ) : null}
        </>
      ) : null}
      {allows(role, 'readAudit') ? (
        <Link href={`/settings/audit?project=${project}`} className="inline-block text-sm text-indigo-700 hover:underline">
          Audit log →
        </Link>
      ) : null}
    </div>
  );
}
