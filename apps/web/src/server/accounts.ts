import 'server-only';
import { allows, type Capability, type Role, roleIn } from '@guardtrace/db';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { cache } from 'react';
import { accountsEnv } from '@/env';
import { type Auth, createAuth } from './auth-config';
import { db } from './db';

// One better-auth instance per server process, beside the Prisma client it uses.
const globalForAuth = globalThis as unknown as { guardtraceAuth?: Auth };

export function auth(): Auth {
  globalForAuth.guardtraceAuth ??= createAuth(db(), accountsEnv());
  return globalForAuth.guardtraceAuth;
}

export interface Account {
  id: string;
  email: string;
  name: string;
}

/** The signed-in account of this request (its session checked in Postgres), or null. Once per request. */
export const currentAccount = cache(async (): Promise<Account | null> => {
  const session = await auth().api.getSession({ headers: await headers() });
  if (!session) return null;
  return { id: session.user.id, email: session.user.email, name: session.user.name };
});

/** The signed-in account; a page without one goes to the sign-in page. */
export async function requireAccount(): Promise<Account> {
  const account = await currentAccount();
  if (!account) redirect('/sign-in');
  return account;
}

/** Why a server action or route handler refused: the HTTP status it stands for, and words for people. */
export class AccessDenied extends Error {
  constructor(
    readonly status: 401 | 403 | 404,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The account and its role, when it may do `capability` in the project. Otherwise throws
 * AccessDenied: 401 signed out, 404 not a member (a foreign project looks like no project),
 * 403 a member whose role does not allow it.
 */
export async function projectAccess(projectId: string, capability: Capability): Promise<{ account: Account; role: Role }> {
  const account = await currentAccount();
  if (!account) throw new AccessDenied(401, 'Sign in first.');
  const role = await roleIn(db(), account.id, projectId);
  if (!role) throw new AccessDenied(404, 'Project not found.');
  if (!allows(role, capability)) throw new AccessDenied(403, `Your role in this project (${role}) does not allow this.`);
  return { account, role };
}

/** A route handler's answer for a refusal: the status and a one-line JSON error. */
export function deniedResponse(err: AccessDenied): Response {
  return Response.json({ error: err.message }, { status: err.status });
}
