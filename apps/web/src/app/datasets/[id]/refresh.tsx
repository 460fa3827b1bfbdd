'use client';

import { useRouter } from 'next/navigation';
import { useEffect } from 'react';

/** While a dataset is being built: reloads the page's data every second (its count grows as items are copied). */
export function RefreshWhileBuilding({ building }: { building: boolean }) {
  const router = useRouter();
  useEffect(() => {
    if (!building) return;
    const t = setInterval(() => router.refresh(), 1000);
    return () => clearInterval(t);
  }, [building, router]);
  return null;
}
