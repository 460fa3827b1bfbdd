import Link from 'next/link';
import { currentAccount } from '@/server/accounts';
import { signOut, signOutEverywhere } from '@/server/account-actions';
import { Menu } from './menu';

const ITEM = 'block w-full px-3 py-2 text-left hover:bg-slate-50';

/** The signed-in account: its projects, its password, sign out here or on every device. */
export async function AccountMenu() {
  const account = await currentAccount();
  if (!account) return null;
  return (
    <Menu
      testId="account-menu"
      summary={
        <summary className="flex cursor-pointer list-none items-center gap-1 rounded-md px-2 py-1 text-sm text-slate-300 hover:text-white">
          <span className="max-w-40 truncate">{account.email}</span>
          <span aria-hidden>▾</span>
        </summary>
      }
    >
      <div className="absolute right-0 z-20 mt-1 w-56 rounded-md border border-slate-200 bg-white py-1 text-sm text-slate-800 shadow-lg">
        <Link href="/projects" className={ITEM}>
          Projects
        </Link>
        <Link href="/account" className={ITEM}>
          Password
        </Link>
        <form action={signOut}>
          <button type="submit" className={ITEM}>
            Sign out
          </button>
        </form>
        <form action={signOutEverywhere}>
          <button type="submit" className={ITEM}>
            Sign out everywhere
          </button>
        </form>
      </div>
    </Menu>
  );
}
