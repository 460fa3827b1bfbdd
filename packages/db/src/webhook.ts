/**
 * Alert webhooks: the signed POST, shared by the collector (firings, resolutions, retries) and
 * the web (Settings > Alerts' "Send test"). A receiver checks
 *   X-Guardtrace-Signature: sha256=<hex of HMAC-SHA256(secret, `${X-Guardtrace-Timestamp}.${body}`)>
 * and refuses a timestamp far from its clock (a replayed request); docs/production.md shows how.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-guardtrace-signature';
export const TIMESTAMP_HEADER = 'x-guardtrace-timestamp';

/** A new webhook secret: 32 random bytes, shown once. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

/** `sha256=<hex>` of the timestamp (unix seconds), a dot and the body. */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export interface WebhookResult {
  ok: boolean;
  /** The receiver's status, null when none came (refused, timed out). */
  status: number | null;
  error: string | null;
}

// 10 s: a receiver that takes longer is retried later rather than holding the evaluator.
const TIMEOUT_MS = 10_000;

/** One signed POST of `body`; never throws. A 2xx is delivered; a redirect is not followed (and fails). */
export async function postWebhook(
  url: string,
  secret: string,
  body: string,
  headers: { event: string; delivery: string; nowMs: number },
): Promise<WebhookResult> {
  const timestamp = Math.floor(headers.nowMs / 1000);
  try {
    const res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Guardtrace-Alerts/1',
        'x-guardtrace-event': headers.event,
        'x-guardtrace-delivery': headers.delivery,
        [TIMESTAMP_HEADER]: String(timestamp),
        [SIGNATURE_HEADER]: signWebhook(secret, timestamp, body),
      },
      body,
    });
    await res.body?.cancel().catch(() => {});
    const ok = res.status >= 200 && res.status < 300;
    return { ok, status: res.status, error: ok ? null : `HTTP ${res.status}` };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const why = e.name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : (e.cause?.code ?? e.cause?.message ?? e.message);
    return { ok: false, status: null, error: why };
  }
}
