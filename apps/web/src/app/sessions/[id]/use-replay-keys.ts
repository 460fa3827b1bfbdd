'use client';

import { useRouter } from 'next/navigation';
import { type Dispatch, type RefObject, type SetStateAction, useLayoutEffect } from 'react';
import { type CallFailureSignature, failureSignature } from '@/lib/call-failures';
import { moveAttempt, moveFailure, moveStep, type Position, wholeCall } from '@/lib/replay-nav';
import type { SameFailureNav } from '@/server/queries/same-failure';
import type { TimelineStepDto } from '@/server/queries/session-types';
import { sessionHref } from './same-failure-links';
import type { SelectionUrl } from './use-selection-url';

function typing(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && target.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]') !== null;
}

interface ReplayKeys extends Pick<SelectionUrl, 'selRef' | 'commit' | 'flushUrl'> {
  steps: TimelineStepDto[];
  project: string;
  search: RefObject<HTMLInputElement | null>;
  requestNav: (sig: CallFailureSignature) => Promise<SameFailureNav | null>;
  setHelp: Dispatch<SetStateAction<boolean>>;
  setNotice: Dispatch<SetStateAction<string | null>>;
}

/**
 * The replay's keys (apps/web/README.md lists them): j/k steps, h/l attempts, e/E failures,
 * / search, ? help, n/N the session with the same failure, y copy the link. Ignored while
 * typing or with a modifier. Attached before the first paint of the steps, so a key pressed
 * once the list shows is handled; it reads the selection from a ref and never re-attaches
 * while stepping.
 */
export function useReplayKeys({ steps, project, search, selRef, commit, flushUrl, requestNav, setHelp, setNotice }: ReplayKeys): void {
  const router = useRouter();
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return;
      const sel = selRef.current;
      const pos: Position = { step: sel.step, attempt: sel.attempt };
      let next: Position | null = null;
      switch (e.key) {
        case 'j':
          next = moveStep(steps, pos, 1);
          break;
        case 'k':
          next = moveStep(steps, pos, -1);
          break;
        case 'l':
          next = moveAttempt(steps, pos, 1);
          break;
        case 'h':
          next = moveAttempt(steps, pos, -1);
          break;
        case 'e':
          next = moveFailure(steps, pos, 1);
          break;
        case 'E':
          next = moveFailure(steps, pos, -1);
          break;
        case '/':
          e.preventDefault();
          search.current?.focus();
          return;
        case '?':
          setHelp((h) => !h);
          return;
        case 'Escape':
          setHelp(false);
          return;
        case 'n':
        case 'N': {
          // The next / previous session with the selected call's failure (loaded with the call, or now).
          // The call's failure, whichever of its parts is selected (call-parts.ts).
          const s = steps[sel.step - 1];
          const call = s ? wholeCall(steps, s) : undefined;
          const sig = call?.kind === 'tool' ? failureSignature(call) : null;
          if (!sig) return;
          const forward = e.key === 'n';
          requestNav(sig).then((nav) => {
            const target = forward ? nav?.next : nav?.previous;
            if (!target) return;
            flushUrl();
            router.push(sessionHref(project, target.id));
          });
          return;
        }
        case 'y':
          flushUrl();
          navigator.clipboard.writeText(window.location.href).then(
            () => setNotice('Link copied'),
            () => setNotice('Could not copy the link'),
          );
          return;
        default:
          return;
      }
      e.preventDefault();
      commit({ ...sel, view: 'steps', ...next }, 'key');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [commit, steps, requestNav, router, project, flushUrl, selRef, search, setHelp, setNotice]);
}
