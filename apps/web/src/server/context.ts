import 'server-only';
import { notFound } from 'next/navigation';
import { parseProjectParam, type RawSearchParams } from '@/lib/search-params';
import { requireAccount } from './accounts';
import { db } from './db';
import { type ProjectSelection, resolveProject } from './queries/projects';

/**
 * The project a page is scoped by, from `?project=` (default: the signed-in account's oldest
 * project), among the projects the account is a member of. A project it is no member of is a
 * 404, exactly like one that does not exist; signed out, the page goes to the sign-in page.
 */
export async function selectProject(sp: RawSearchParams): Promise<ProjectSelection> {
  const account = await requireAccount();
  const selection = await resolveProject(db(), account.id, parseProjectParam(sp));
  if (selection.unknownRequested) notFound();
  return selection;
}
