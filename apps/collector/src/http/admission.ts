/**
 * Admission, before a request's body is read: its API key (401/403, or 503 while the database
 * cannot say), its key's rate limit (429), and whether its body, as declared, fits in the
 * in-flight memory bounds now: the collector's, its project's, its key's (503 when it does not
 * fit now, 413 when it never would). Nothing is set aside yet: the body is counted as it arrives.
 */
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { type KeyCache, keyFromHeaders } from '../auth.ts';
import { CollectorError } from '../errors.ts';
import { expectedCost, type InFlightMemory } from '../in-flight.ts';
import { encodingOf } from '../otlp-decode.ts';
import type { RateLimiter } from '../rate-limit.ts';

export function createAdmission(deps: { keys: KeyCache; limiter: RateLimiter; memory: InFlightMemory }): onRequestAsyncHookHandler {
  const { keys, limiter, memory } = deps;
  return async (req: FastifyRequest) => {
    const principal = await keys.authenticate(keyFromHeaders(req.headers));
    const wait = limiter.take(principal.keyHash);
    if (wait > 0) throw CollectorError.tooMany('rate limit exceeded for this API key', wait);
    req.gt.principal = principal;
    const held = req.gt.held;
    held.project = principal.projectId;
    held.key = principal.keyHash;
    // What the body declares, with what its decoding will need when it is not compressed, must
    // fit now; it is counted as it arrives (http/body-parsing.ts): headers alone hold nothing.
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > 0) {
      const encoding = encodingOf(req.headers['content-type']);
      const enc = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
      const plain = encoding !== undefined && (enc === '' || enc === 'identity');
      memory.check(held, plain ? declared + expectedCost(declared, encoding) : declared);
    }
  };
}
