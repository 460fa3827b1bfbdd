/**
 * What every response of the web app carries, and what a request must look like before Next
 * sees it. Used by the proxy (every page, action and asset) and by the production launcher
 * (scripts/serve.ts), which answers requests Next itself would fail with a bare 500.
 */

/** Methods the app answers: pages (GET, HEAD), server actions (POST). */
const ALLOWED_METHODS = ['GET', 'HEAD', 'POST'] as const;

/**
 * The Content-Security-Policy of a page rendered with `nonce`: scripts only from this origin
 * with the page's nonce (Next puts it on its own inline scripts), nothing framed, no plugins,
 * forms and fetches only to this origin. Styles allow inline attributes: charts set them.
 */
export function contentSecurityPolicy(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    // 'strict-dynamic': scripts a nonce'd script loads (Next's chunks) are trusted too.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The nonce a page's policy allows (contentSecurityPolicy), for a script the page renders itself. */
export function nonceOfPolicy(policy: string | null): string | undefined {
  return /'nonce-([^']+)'/.exec(policy ?? '')?.[1];
}

/** Headers for every response besides the CSP (which is per page, with its nonce). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  // For browsers that predate frame-ancestors.
  'x-frame-options': 'DENY',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

/** The CSP of answers that are not pages (errors, health checks): nothing may run or load. */
export const NO_CONTENT_CSP = "default-src 'none'; frame-ancestors 'none'";

export interface Refusal {
  status: 400 | 405;
  message: string;
  headers?: Record<string, string>;
}

/**
 * Why a request cannot be served, or null. A method other than GET, HEAD or POST gets 405;
 * a URL whose percent-encoding does not decode, or that holds a NUL character (Postgres refuses
 * it in text, and no id has one), gets 400: Next answered both with 500.
 */
export function screenRequest(method: string | undefined, url: string | undefined): Refusal | null {
  if (!ALLOWED_METHODS.includes((method ?? '') as (typeof ALLOWED_METHODS)[number])) {
    return {
      status: 405,
      message: `method ${method} is not allowed here: the web app answers ${ALLOWED_METHODS.join(', ')}`,
      headers: { allow: ALLOWED_METHODS.join(', ') },
    };
  }
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  const pathPart = q < 0 ? raw : raw.slice(0, q);
  const query = q < 0 ? '' : raw.slice(q + 1);
  let decodedPath: string;
  try {
    decodedPath = decodeURIComponent(pathPart);
  } catch {
    return { status: 400, message: 'the URL path has malformed percent-encoding (a % must start a valid UTF-8 escape like %2F)' };
  }
  // The query is decoded leniently by Next (a bad escape stays as it is), so only NUL matters there.
  if (decodedPath.includes('\0') || /%00/.test(query) || query.includes('\0')) {
    return { status: 400, message: 'the URL holds a NUL character (%00), which no page, id or filter accepts' };
  }
  return null;
}
