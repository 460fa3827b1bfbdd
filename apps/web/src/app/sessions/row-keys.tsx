'use client';

import { useRouter } from 'next/navigation';
import { type ReactNode, useEffect, useRef } from 'react';

const ROW = '[data-testid="session-row"]';

/**
 * ↑/↓ move the selected session row (focusing its link, so it scrolls into view and Tab goes on
 * from there); Enter opens it. Ignored while typing or on other controls, which keep their keys.
 */
export function RowKeys({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const selected = useRef(-1);
  const router = useRouter();

  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    const rows = () => Array.from(root.querySelectorAll<HTMLElement>(ROW));
    const mark = (i: number) => {
      selected.current = i;
      for (const [j, r] of rows().entries()) r.toggleAttribute('data-selected', j === i);
    };
    const onFocus = (e: FocusEvent) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>(ROW);
      if (row) mark(rows().indexOf(row));
    };
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
      if (target.closest('input, textarea, select, button, summary, [contenteditable]')) return;
      const list = rows();
      if (!list.length) return;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        const inRow = target.closest<HTMLElement>(ROW);
        const current = inRow ? list.indexOf(inRow) : selected.current;
        const next = e.key === 'ArrowDown' ? Math.min(current + 1, list.length - 1) : Math.max(current - 1, 0);
        e.preventDefault();
        mark(next);
        list[next]?.querySelector<HTMLAnchorElement>('a')?.focus();
      } else if (e.key === 'Enter' && !target.closest('a')) {
        const href = list[selected.current]?.querySelector('a')?.getAttribute('href');
        if (!href) return;
        e.preventDefault();
        router.push(href);
      }
    };
    root.addEventListener('focusin', onFocus);
    window.addEventListener('keydown', onKey);
    return () => {
      root.removeEventListener('focusin', onFocus);
      window.removeEventListener('keydown', onKey);
    };
  }, [router]);

  return <div ref={ref}>{children}</div>;
}
