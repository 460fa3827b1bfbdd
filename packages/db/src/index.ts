// Client-bundle-safe for server components: Prisma client, keys, no embedded Postgres/migrator.

export type { Capability, InvitationRow, MemberProject, MemberRow, Role } from './access.ts';
export {
  acceptInvitation,
  allows,
  changeRole,
  checkProjectName,
  createInvitation,
  createOwnedProject,
  deleteProject,
  INVITATION_TTL_MS,
  isRole,
  listInvitations,
  listMembers,
  MembershipError,
  peekInvitation,
  projectsOf,
  ROLES,
  removeMember,
  renameProject,
  revokeInvitation,
  roleIn,
} from './access.ts';
export { refreshAnalyticsRollup } from './analytics.ts';
export type { AuditAction, AuditActor, AuditEntryRow, AuditInput, Db } from './audit.ts';
export { AUDIT_ACTIONS, listAudit, recordAudit } from './audit.ts';
export type { PrismaClient, Sql } from './client.ts';
export { createPrisma, queryArrays, sql } from './client.ts';
export type { CreatedKey } from './keys.ts';
export { API_KEY_CHANNEL, createApiKey, createProject, generateApiKey, hashApiKey, revokeApiKey } from './keys.ts';
export { consumeSignInLink, createSignInLink, ensureOwner, hasPassword, ownerHasPassword, SIGN_IN_LINK_TTL_MS, signInLinkPath } from './owner.ts';
export type { CostEstimate, ModelPrice, ModelTokens, PriceEntry, PriceOrigin } from './prices.ts';
export { costOf, estimateCost, normalizeModel, PRICE_TABLE, PRICES_CHECKED, PriceBook, UNNAMED_MODEL } from './prices.ts';
export type { ReadChoice, ReadRouterOptions } from './read-router.ts';
export { ReadRouter } from './read-router.ts';
export { LATEST_MIGRATION } from './schema-version.ts';
