import 'server-only';
import type { Capability } from '@guardtrace/db';
import { AccessDenied, type Account, projectAccess } from './accounts';

export interface ActionState {
  ok: boolean;
  message: string;
  /** A key or link just created: shown once. */
  key?: string;
  /** On refusal: the HTTP status it stands for (401 signed out, 403 role, 404 no such project for this account). */
  status?: 401 | 403 | 404;
}

/**
 * Runs `change` when the signed-in account's role in the project allows `capability`; each
 * server action checks this itself (src/proxy.ts only saw a cookie). A refusal becomes a
 * message with its status, and nothing changes.
 */
export async function guarded(project: string, capability: Capability, change: (account: Account) => Promise<ActionState>): Promise<ActionState> {
  try {
    const { account } = await projectAccess(project, capability);
    return await change(account);
  } catch (err) {
    if (err instanceof AccessDenied) return { ok: false, message: err.message, status: err.status };
    throw err;
  }
}
