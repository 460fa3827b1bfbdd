import 'server-only';
import { parseProjectParam, type RawSearchParams } from '@/lib/search-params';
import { db } from './db';
import { type ProjectSelection, resolveProject } from './queries/projects';

/** The project a page is scoped by, from `?project=` (default: the oldest project). */
export function selectProject(sp: RawSearchParams): Promise<ProjectSelection> {
  return resolveProject(db(), parseProjectParam(sp));
}
