'use client';

import { type RefObject, useCallback, useEffect, useRef, useState } from 'react';
import { defaultAttempt, type Position, stepFailed } from '@/lib/replay-nav';
import type { TimelineStepDto } from '@/server/queries/session-types';
import type { Via } from './replay-context';

type View = 'steps' | 'tree';

export interface Selection extends Position {
  view: View;
  /** Span id selected in the span tree. */
  span: string | null;
}

export interface InitialSelection {
  step: number | null;
  attempt: number | null;
  view: View;
  span: string | null;
  /**
   * A tool call's span id (`call=`, a dataset item's stepPath): selects that call's step, found
   * by span id (step numbers move when late spans arrive); it wins over `step`.
   */
  call?: string | null;
}

function readUrl(): InitialSelection {
  const q = new URLSearchParams(window.location.search);
  const n = (k: string) => {
    const v = q.get(k);
    return v && /^\d+$/.test(v) ? Number(v) : null;
  };
  return { step: n('step'), attempt: n('attempt'), view: q.get('view') === 'tree' ? 'tree' : 'steps', span: q.get('span'), call: q.get('call') };
}

/** The selection a URL asks for, within bounds; with no step, the first failure (else step 1). */
function clamp(steps: TimelineStepDto[], i: InitialSelection): Selection {
  const firstFailure = steps.findIndex(stepFailed) + 1;
  const byCall = i.call ? steps.findIndex((s) => s.kind === 'tool' && s.spanId === i.call) + 1 : 0;
  const step = byCall || Math.min(Math.max(i.step ?? (firstFailure || 1), 1), Math.max(steps.length, 1));
  const s = steps[step - 1];
  const valid = s?.kind === 'tool' && s.attempts.some((a) => a.number === i.attempt);
  return { step, attempt: valid ? i.attempt : defaultAttempt(s), view: i.view, span: i.span };
}

/** How long after the last key the URL is written (one router update for a burst of keys). */
const URL_DELAY_MS = 300;

export interface SelectionUrl {
  sel: Selection;
  /** The selection as of the last commit, for handlers that must not change with it. */
  selRef: RefObject<Selection>;
  /** Selects `next`: a key replaces the history entry (once stepping pauses), a click pushes one. */
  commit: (next: Selection, via: Via) => void;
  /** Writes a URL still waiting for stepping to pause: before copying a link or leaving. */
  flushUrl: () => void;
}

/**
 * The replay's selection, kept in the URL. Next.js turns every history.replaceState into a
 * router update (a render of the app's router tree): keys therefore write the URL once stepping
 * pauses, not on every key. A click, a copied link and a navigation away write it first; Back
 * drops it and selects what the URL it returns to asks for.
 */
export function useSelectionUrl(steps: TimelineStepDto[], basePath: string, project: string, initial: InitialSelection): SelectionUrl {
  const [sel, setSel] = useState<Selection>(() => clamp(steps, initial));
  const selRef = useRef(sel);
  const apply = useCallback((next: Selection) => {
    selRef.current = next;
    setSel(next);
  }, []);

  const pendingUrl = useRef<{ url: string; timer: ReturnType<typeof setTimeout> } | null>(null);
  const flushUrl = useCallback(() => {
    const p = pendingUrl.current;
    if (!p) return;
    clearTimeout(p.timer);
    pendingUrl.current = null;
    window.history.replaceState(window.history.state, '', p.url);
  }, []);
  const dropUrl = useCallback(() => {
    if (pendingUrl.current) clearTimeout(pendingUrl.current.timer);
    pendingUrl.current = null;
  }, []);
  useEffect(() => dropUrl, [dropUrl]);

  const commit = useCallback(
    (next: Selection, via: Via) => {
      apply(next);
      const q = new URLSearchParams(window.location.search);
      q.set('project', project);
      q.set('step', String(next.step));
      q.delete('call');
      if (next.attempt !== null) q.set('attempt', String(next.attempt));
      else q.delete('attempt');
      if (next.view === 'tree') q.set('view', 'tree');
      else q.delete('view');
      if (next.view === 'tree' && next.span) q.set('span', next.span);
      else q.delete('span');
      const url = `${basePath}?${q}`;
      if (via === 'key') {
        dropUrl();
        pendingUrl.current = { url, timer: setTimeout(flushUrl, URL_DELAY_MS) };
      } else {
        flushUrl();
        window.history.pushState(window.history.state, '', url);
      }
    },
    [apply, basePath, project, dropUrl, flushUrl],
  );

  useEffect(() => {
    const onPop = () => {
      dropUrl();
      apply(clamp(steps, readUrl()));
    };
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, [apply, dropUrl, steps]);

  return { sel, selRef, commit, flushUrl };
}
