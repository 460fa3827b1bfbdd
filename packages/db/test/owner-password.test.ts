import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOwnedProject, createProject, ensureOwner, ownerHasPassword } from '../src/index.ts';
import { createPrisma, type PrismaClient } from '../src/client.ts';
import { createTestDatabase, type TestDatabase } from '../src/dev.ts';

// Whether the sign-in page tells how to get a new sign-in link: the install's owner (the account
// `npm start` and `pnpm sign-in-link` sign in) has no password. A database of its own: the
// install's owner is the first owner of its oldest project.
let db: TestDatabase;
let prisma: PrismaClient;
beforeAll(async () => {
  db = await createTestDatabase({ partitions: false });
  prisma = createPrisma(db.url, { max: 2 });
});
afterAll(async () => {
  await prisma?.$disconnect();
  await db?.close();
});

const credential = (userId: string, password: string | null) =>
  prisma.authAccount.create({ data: { id: randomUUID(), accountId: userId, providerId: 'credential', userId, password } });

it('is false until the install owner has a password, whatever other owners have', async () => {
  expect(await ownerHasPassword(prisma)).toBe(false);
  await createProject(prisma, 'Default project');
  const owner = await ensureOwner(prisma);
  expect(owner.email).toBe('owner@localhost');
  expect(await ownerHasPassword(prisma)).toBe(false);

  // Someone invited later, with a password, owning a project of their own: the owner still has none.
  const other = await prisma.authUser.create({ data: { id: randomUUID(), name: 'o', email: 'other@example.test', emailVerified: true } });
  await credential(other.id, '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA');
  await createOwnedProject(prisma, 'Theirs', { id: other.id, email: other.email });
  expect(await ownerHasPassword(prisma)).toBe(false);

  // A credential row without a password (none set yet) is not one.
  const row = await credential(owner.id, null);
  expect(await ownerHasPassword(prisma)).toBe(false);
  await prisma.authAccount.update({ where: { id: row.id }, data: { password: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA' } });
  expect(await ownerHasPassword(prisma)).toBe(true);
});
