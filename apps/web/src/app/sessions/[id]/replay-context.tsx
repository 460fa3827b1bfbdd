'use client';

import { createContext, useContext } from 'react';
import type { CallFailureSignature } from '@/lib/call-failures';
import type { SameFailureNav } from '@/server/queries/same-failure';

/** How a selection reaches the URL: keys replace the entry, clicks push a new one. */
export type Via = 'key' | 'click';

export interface ReplayContextValue {
  /** `/sessions/{id}`, the base of the payload route. */
  basePath: string;
  project: string;
  sessionId: string;
  /** "Same failure" navigation per failure signature (`signatureKey`) asked for so far; null: none. */
  sameFailure: Record<string, SameFailureNav | null>;
  /** Loads the navigation of a failure (once per signature) into `sameFailure`. */
  requestSameFailure: (sig: CallFailureSignature) => Promise<SameFailureNav | null>;
  select: (step: number, attempt: number | null, via: Via) => void;
}

export const ReplayContext = createContext<ReplayContextValue | null>(null);

export function useReplayContext(): ReplayContextValue {
  const ctx = useContext(ReplayContext);
  if (!ctx) throw new Error('useReplayContext: render inside <ReplayContext value={...}> (the session replay)');
  return ctx;
}
