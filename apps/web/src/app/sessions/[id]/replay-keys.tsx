'use client';

import { useRouter } from 'next/navigation';
import { useEffect } from 'react';

/** Keyboard replay (← / →) and keeping the current step in view. */
export function ReplayKeys({ current, prevHref, nextHref }: { current: number | null; prevHref: string | null; nextHref: string | null }) {
  const router = useRouter();

  useEffect(() => {
    if (current === null) return;
    const el = document.getElementById(`step-${current}`);
    // Short steps are centred; a tall tool call starts at the top, under the sticky replay bar.
    const tall = (el?.offsetHeight ?? 0) > window.innerHeight * 0.6;
    el?.scrollIntoView({ block: tall ? 'start' : 'center', behavior: 'smooth' });
  }, [current]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (e.altKey || e.ctrlKey || e.metaKey || target?.closest('input, textarea, select, [contenteditable]')) return;
      const href = e.key === 'ArrowLeft' ? prevHref : e.key === 'ArrowRight' ? nextHref : null;
      if (!href) return;
      e.preventDefault();
      router.push(href, { scroll: false });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [router, prevHref, nextHref]);

  return null;
}
