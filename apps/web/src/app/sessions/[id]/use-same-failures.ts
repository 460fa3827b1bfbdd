'use client';

import { useCallback, useRef, useState } from 'react';
import { type CallFailureSignature, signatureKey } from '@/lib/call-failures';
import { sameFailureUrl } from '@/lib/replay-urls';
import type { SameFailureNav } from '@/server/queries/same-failure';
import { getJson } from './use-json';

/**
 * The "same failure" navigation of the session's failures, loaded on first ask (one request per
 * distinct failure): the selected call shows it, and n / N wait for it.
 */
export function useSameFailures(basePath: string, project: string) {
  const [navs, setNavs] = useState<Record<string, SameFailureNav | null>>({});
  const pending = useRef(new Map<string, Promise<SameFailureNav | null>>());
  const requestNav = useCallback(
    (sig: CallFailureSignature): Promise<SameFailureNav | null> => {
      const k = signatureKey(sig);
      let p = pending.current.get(k);
      if (!p) {
        // A failure the server cannot place (no such session any more) has no navigation: shown as none.
        p = getJson<SameFailureNav>(sameFailureUrl(basePath, project, sig)).catch(() => null);
        pending.current.set(k, p);
        p.then((nav) => setNavs((m) => ({ ...m, [k]: nav })));
      }
      return p;
    },
    [basePath, project],
  );
  return { navs, requestNav };
}
