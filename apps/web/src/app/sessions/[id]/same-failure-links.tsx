import Link from 'next/link';
import type { CallFailureSignature } from '@/lib/call-failures';
import { formatInt } from '@/lib/format';
import { hrefWith } from '@/lib/search-params';
import type { SameFailureNav } from '@/server/queries/same-failure';

export interface SameFailureLinksProps {
  project: string;
  signature: CallFailureSignature;
  /** Loaded with the page (one query per distinct failure of the session): stepping never waits for it. */
  nav: SameFailureNav;
}

const link = 'rounded px-1.5 py-0.5 font-medium text-indigo-800 hover:bg-indigo-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500';

export const sessionHref = (project: string, id: string) => hrefWith(`/sessions/${encodeURIComponent(id)}`, { project });

/**
 * "Next session with the same failure": the sessions of the project, by start time, whose
 * attempt of the same tool failed with the same class at the same field. n / N follow the links.
 */
export function SameFailureLinks({ project, signature, nav }: SameFailureLinksProps) {
  const what = `${signature.toolName} · ${signature.failureClass}${signature.pointer !== null ? ` · ${signature.pointer === '' ? '(whole value)' : signature.pointer}` : ''}`;
  return (
    <nav aria-label="Sessions with the same failure" data-testid="same-failure" className="flex flex-wrap items-center gap-2 text-xs text-slate-700">
      <span>
        Same failure (<span className="font-mono wrap-anywhere">{what}</span>):{' '}
        <span data-testid="same-failure-position" className="tabular-nums">
          session {formatInt(nav.position)} of {formatInt(nav.total)}
        </span>
      </span>
      {nav.previous ? (
        <Link href={sessionHref(project, nav.previous.id)} className={link} data-testid="same-failure-previous" aria-keyshortcuts="Shift+N" title="Previous session with this failure (N)">
          ← previous <kbd className="font-mono text-slate-600">N</kbd>
        </Link>
      ) : (
        <span className="px-1.5 text-slate-500">no earlier session</span>
      )}
      {nav.next ? (
        <Link href={sessionHref(project, nav.next.id)} className={link} data-testid="same-failure-next" aria-keyshortcuts="n" title="Next session with this failure (n)">
          next → <kbd className="font-mono text-slate-600">n</kbd>
        </Link>
      ) : (
        <span className="px-1.5 text-slate-500">no later session</span>
      )}
    </nav>
  );
}
