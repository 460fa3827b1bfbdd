/**
 * A request started by the page's HTML itself, before the page's scripts run: the replay's
 * steps of a 5,000-span session take the server hundreds of milliseconds, and a `<link
 * rel=preload as=fetch>` was issued by Chromium only once the page's scripts had loaded and
 * run (apps/web/bench/notes.md, "Replay data route"). An inline script in the page's HTML
 * starts the `fetch` when the parser reaches it; the client takes the pending response over
 * (once) instead of asking again.
 */

const GLOBAL = '__guardtraceEarlyFetch';

type EarlyFetches = Record<string, Promise<Response> | undefined>;

/**
 * The inline script that starts `GET url` and keeps its promise for `takeEarlyFetch`. The URL
 * is embedded as a JSON string with `<` escaped, so no value can close the script element.
 */
export function earlyFetchScript(url: string): string {
  const literal = JSON.stringify(url).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return `(self.${GLOBAL}=self.${GLOBAL}||{})[${literal}]=fetch(${literal},{credentials:"same-origin"});`;
}

/** The response the page's HTML started for `url`, once (null: none, or already taken). */
export function takeEarlyFetch(url: string): Promise<Response> | null {
  if (typeof window === 'undefined') return null;
  const all = (window as unknown as Record<string, EarlyFetches | undefined>)[GLOBAL];
  const pending = all?.[url];
  if (!all || !pending) return null;
  all[url] = undefined;
  return pending;
}
