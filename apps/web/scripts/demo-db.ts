/**
 * Development aid: a throwaway Postgres filled with a realistic mix of sessions, for
 * looking at the UI without the SDK and collector. Prints DATABASE_URL; Ctrl-C removes it.
 *   pnpm --filter @guardtrace/web demo-db
 */
import { createPrisma } from '@guardtrace/db';
import { createTestDatabase } from '@guardtrace/db/dev';
import { seedDemo } from '../test/demo-data.ts';

const database = await createTestDatabase();
const prisma = createPrisma(database.url, { max: 2 });
const { projectId, sessions } = await seedDemo(prisma);
await prisma.$disconnect();
console.log(`project ${projectId}: ${sessions} sessions`);
console.log(`DATABASE_URL=${database.url}`);

const stop = async () => {
  await database.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
setInterval(() => {}, 1 << 30);
