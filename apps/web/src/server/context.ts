import 'server-only';
import { notFound } from 'next/navigation';
import { parseProjectParam, type RawSearchParams } from '@/lib/search-params';
import { db } from './db';
import { type ProjectSelection, resolveProject } from './queries/projects';

/**
 * The project a page is scoped by, from `?project=` (default: the oldest project).
 * A well-formed id of no existing project is a 404, never a silent switch to another project.
 */
export async function selectProject(sp: RawSearchParams): Promise<ProjectSelection> {
  const selection = await resolveProject(db(), parseProjectParam(sp));
  if (selection.unknownRequested) notFound();
  return selection;
}
