'use client';

import { useEffect, useState } from 'react';

export type Loaded<T> = { state: 'loading' } | { state: 'ready'; value: T } | { state: 'error'; message: string };

/** GETs JSON from one of the replay's routes; a refusal carries `{ error }`, shown as is. */
export async function getJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(url, { signal });
  const body = (await res.json().catch(() => null)) as (T & { error?: string }) | null;
  if (!res.ok || body === null) throw new Error(body?.error ?? `${url}: HTTP ${res.status}`);
  return body;
}

/** The JSON at `url` (null: nothing to load yet), loaded once per URL. */
export function useJson<T>(url: string | null): Loaded<T> {
  const [loaded, setLoaded] = useState<{ url: string; value: Loaded<T> } | null>(null);
  useEffect(() => {
    if (url === null) return;
    const abort = new AbortController();
    getJson<T>(url, abort.signal).then(
      (value) => setLoaded({ url, value: { state: 'ready', value } }),
      (err: unknown) => {
        if (!abort.signal.aborted) setLoaded({ url, value: { state: 'error', message: err instanceof Error ? err.message : String(err) } });
      },
    );
    return () => abort.abort();
  }, [url]);
  return loaded && loaded.url === url ? loaded.value : { state: 'loading' };
}
