import 'server-only';
import { type PrismaClient, projectsOf, type Role } from '@guardtrace/db';

export interface ProjectDto {
  id: string;
  name: string;
  createdAt: string;
  /** The signed-in account's role in it. */
  role: Role;
}

export interface ProjectSelection {
  /** The project every query of the page is scoped by; null when the account has none. */
  current: ProjectDto | null;
  /** The projects the account is a member of. */
  projects: ProjectDto[];
  /** True when `?project=` named a project that does not exist or the account is no member of. */
  unknownRequested: boolean;
}

async function listProjects(db: PrismaClient, userId: string): Promise<ProjectDto[]> {
  const rows = await projectsOf(db, userId);
  return rows.map((p) => ({ id: p.id, name: p.name, createdAt: p.createdAt.toISOString(), role: p.role }));
}

/** The requested project (a validated uuid) if the account is a member, else its oldest project. */
export async function resolveProject(db: PrismaClient, userId: string, requested: string | undefined): Promise<ProjectSelection> {
  const projects = await listProjects(db, userId);
  if (requested) {
    const match = projects.find((p) => p.id === requested) ?? null;
    return { current: match, projects, unknownRequested: match === null };
  }
  return { current: projects[0] ?? null, projects, unknownRequested: false };
}
