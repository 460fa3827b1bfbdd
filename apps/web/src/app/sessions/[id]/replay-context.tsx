'use client';

import { createContext, useContext } from 'react';

/** How a selection reaches the URL: keys replace the entry, clicks push a new one. */
export type Via = 'key' | 'click';

export interface ReplayContextValue {
  /** `/sessions/{id}`, the base of the payload route. */
  basePath: string;
  project: string;
  select: (step: number, attempt: number | null, via: Via) => void;
}

export const ReplayContext = createContext<ReplayContextValue | null>(null);

export function useReplayContext(): ReplayContextValue {
  const ctx = useContext(ReplayContext);
  if (!ctx) throw new Error('useReplayContext: render inside <ReplayContext value={...}> (the session replay)');
  return ctx;
}
