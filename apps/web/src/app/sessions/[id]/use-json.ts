'use client';

import { useEffect, useState } from 'react';
import { takeEarlyFetch } from '@/lib/early-fetch';

export type Loaded<T> = { state: 'loading' } | { state: 'ready'; value: T } | { state: 'error'; message: string };

/** The JSON body of a replay route's answer; a refusal carries `{ error }`, shown as is. */
async function readJson<T>(url: string, res: Response): Promise<T> {
  const body = (await res.json().catch(() => null)) as (T & { error?: string }) | null;
  if (!res.ok || body === null) throw new Error(body?.error ?? `${url}: HTTP ${res.status}`);
  return body;
}

/** GETs JSON from one of the replay's routes. */
export async function getJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  return readJson<T>(url, await fetch(url, { signal }));
}

/**
 * The JSON at `url` (null: nothing to load yet), loaded once per URL. A request the page's
 * HTML already started (early-fetch.ts) is taken over instead of asking again.
 */
export function useJson<T>(url: string | null): Loaded<T> {
  const [loaded, setLoaded] = useState<{ url: string; value: Loaded<T> } | null>(null);
  useEffect(() => {
    if (url === null) return;
    const abort = new AbortController();
    const early = takeEarlyFetch(url);
    const body = early ? early.then((res) => readJson<T>(url, res)) : getJson<T>(url, abort.signal);
    body.then(
      (value) => {
        if (!abort.signal.aborted) setLoaded({ url, value: { state: 'ready', value } });
      },
      (err: unknown) => {
        if (!abort.signal.aborted) setLoaded({ url, value: { state: 'error', message: err instanceof Error ? err.message : String(err) } });
      },
    );
    return () => abort.abort();
  }, [url]);
  return loaded && loaded.url === url ? loaded.value : { state: 'loading' };
}
