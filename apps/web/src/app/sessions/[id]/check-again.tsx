'use client';

import { useEffect, useState } from 'react';

/** How often, and how many times, a session link that found nothing is tried again. */
const EVERY_MS = 5_000;
const TIMES = 12;

/**
 * A link opened before its session's spans arrived (shared as the agent ran, an alert sent as its
 * batch committed) finds nothing at first: the page loads itself again every 5 s for a minute,
 * counting in sessionStorage per address, so it shows the replay once the spans are stored.
 */
export function CheckAgain() {
  const [left, setLeft] = useState<number | null>(null);
  useEffect(() => {
    const key = `gt-check-again:${location.pathname}${location.search}`;
    // `<checks done> <when the first was>`: a visit long after the last checks starts over.
    const [count, since] = (sessionStorage.getItem(key) ?? '').split(' ').map(Number);
    const fresh = !count || !since || Date.now() - since > 10 * TIMES * EVERY_MS;
    const done = fresh ? 0 : count;
    if (done >= TIMES) {
      setLeft(0);
      return;
    }
    setLeft(TIMES - done);
    const timer = setTimeout(() => {
      sessionStorage.setItem(key, `${done + 1} ${fresh ? Date.now() : since}`);
      location.reload();
    }, EVERY_MS);
    return () => clearTimeout(timer);
  }, []);
  if (left === null) return null;
  return (
    <p className="mt-4 text-sm text-slate-500" data-testid="check-again" aria-live="polite">
      {left > 0
        ? `Its spans may still be on their way: this page checks again every ${EVERY_MS / 1000} s (${left} more ${left === 1 ? 'time' : 'times'}).`
        : 'Checked again for a minute: still not stored.'}
    </p>
  );
}
