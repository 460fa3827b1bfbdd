import Link from 'next/link';
import { CheckAgain } from './check-again';

/**
 * A session link that finds nothing: often one that was right when it was made (a dataset's step,
 * an alert, a shared link) and whose session is no longer stored, so the page says what removes
 * sessions rather than only that this one does not exist; and one opened before its spans
 * arrived, so the page tries again for a minute (check-again.tsx).
 */
export default function SessionNotFound() {
  return (
    <main className="mx-auto max-w-xl px-6 py-24 text-center">
      <p className="text-sm font-semibold text-indigo-600">404</p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">Session not stored</h1>
      <p className="mt-3 text-slate-600">No session of this id is stored in this project. A link made earlier (a dataset&apos;s step, an alert, a shared link) can outlive its session:</p>
      <ul className="mx-auto mt-3 max-w-md list-disc pl-5 text-left text-sm text-slate-600">
        <li>sessions older than the project&apos;s retention are deleted (Settings, Retention);</li>
        <li>a clean session the project&apos;s sampling did not keep is not stored;</li>
        <li>or it belongs to another project, or was never recorded.</li>
      </ul>
      <CheckAgain />
      <Link href="/sessions" className="mt-6 inline-block text-sm font-medium text-indigo-700 hover:underline">
        Back to sessions
      </Link>
    </main>
  );
}
