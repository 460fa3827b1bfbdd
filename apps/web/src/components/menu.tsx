'use client';

import { type ReactNode, useEffect, useRef } from 'react';

/**
 * A <details> dropdown that also closes on an outside click, on Escape and after a link
 * inside it is followed. Works without JavaScript as a plain <details>.
 */
export function Menu({ summary, children, className, testId }: { summary: ReactNode; children: ReactNode; className?: string; testId?: string }) {
  const ref = useRef<HTMLDetailsElement>(null);

  useEffect(() => {
    const close = () => ref.current?.removeAttribute('open');
    const onPointer = (e: PointerEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) close();
    };
    // Following a link inside (by mouse or keyboard) closes the menu for the next page.
    const onClick = (e: MouseEvent) => {
      const link = (e.target as HTMLElement | null)?.closest('a');
      if (link && ref.current?.contains(link)) close();
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close();
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    document.addEventListener('click', onClick);
    return () => {
      document.removeEventListener('click', onClick);
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, []);

  return (
    <details
      ref={ref}
      className={`group relative ${className ?? ''}`}
      data-testid={testId}
    >
      {summary}
      {children}
    </details>
  );
}
