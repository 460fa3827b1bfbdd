import 'server-only';
import type { PrismaClient } from '@guardtrace/db';

export interface ProjectDto {
  id: string;
  name: string;
  createdAt: string;
}

export interface ProjectSelection {
  /** The project every query of the page is scoped by; null when none exists (or unknown id). */
  current: ProjectDto | null;
  projects: ProjectDto[];
  /** True when `?project=` named a project that does not exist. */
  unknownRequested: boolean;
}

export async function listProjects(db: PrismaClient): Promise<ProjectDto[]> {
  const rows = await db.project.findMany({
    select: { id: true, name: true, createdAt: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  return rows.map((p) => ({ id: p.id, name: p.name, createdAt: p.createdAt.toISOString() }));
}

/** The requested project (a validated uuid), else the oldest project. */
export async function resolveProject(db: PrismaClient, requested: string | undefined): Promise<ProjectSelection> {
  const projects = await listProjects(db);
  if (requested) {
    const match = projects.find((p) => p.id === requested) ?? null;
    return { current: match, projects, unknownRequested: match === null };
  }
  return { current: projects[0] ?? null, projects, unknownRequested: false };
}
