// Client-bundle-safe for server components: Prisma client, keys, no embedded Postgres/migrator.
export { createPrisma, sql } from './client.ts';
export type { PrismaClient, Sql } from './client.ts';
export { refreshAnalyticsRollup } from './analytics.ts';
export { API_KEY_CHANNEL, createApiKey, createProject, generateApiKey, hashApiKey, revokeApiKey } from './keys.ts';
export type { CreatedKey } from './keys.ts';
