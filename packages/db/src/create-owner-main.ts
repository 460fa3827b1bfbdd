/**
 * `pnpm --filter @guardtrace/db create-owner -- --base-url https://guardtrace.example.com [--email you@example.com]`
 * Makes (or finds) the owner account and prints a one-time sign-in link for it (DATABASE_URL).
 */
import { parseArgs } from 'node:util';
import { createPrisma } from './client.ts';
import { createSignInLink, ensureOwner, SIGN_IN_LINK_TTL_MS, signInLinkPath } from './owner.ts';

// pnpm passes a `--` before the script's own options on to it (`pnpm … create-owner -- --base-url …`).
const args = process.argv.slice(2);
if (args[0] === '--') args.shift();
const { values } = parseArgs({ args, options: { email: { type: 'string' }, 'base-url': { type: 'string' } } });
const url = process.env.DATABASE_URL;
const base = values['base-url'];
if (!url || !base || !/^https?:\/\//.test(base)) {
  console.error('usage: DATABASE_URL=postgres://... create-owner --base-url https://your-guardtrace [--email you@example.com]');
  console.error(!url ? 'DATABASE_URL is not set' : 'the base URL (--base-url) must start with http:// or https://');
  process.exit(2);
}
const prisma = createPrisma(url, { max: 1 });
try {
  const owner = await ensureOwner(prisma, values.email);
  const link = await createSignInLink(prisma, owner.id);
  console.log(`${owner.created ? 'Created' : 'Found'} owner ${owner.email}.`);
  console.log(`Sign in once within ${SIGN_IN_LINK_TTL_MS / 60_000} minutes: ${base.replace(/\/+$/, '')}${signInLinkPath(link.token)}`);
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
} finally {
  await prisma.$disconnect();
}
