/**
 * API keys: `Authorization: Bearer gt_...` or `x-guardtrace-api-key`. Looked up by SHA-256
 * hash (the key itself is never stored), cached briefly so ingest does not hit Postgres per
 * request. 401 missing/unknown, 403 revoked; a key writes only to its own project.
 */
// The keys entry: hashing without the Prisma client, which the collector does not use.
import { API_KEY_CHANNEL, hashApiKey } from '@guardtrace/db/keys';
import pg from 'pg';
import { CollectorError } from './errors.ts';
import { isUnavailable, timedQuery } from './pg.ts';

export interface KeyCacheOptions {
  /** How long a found key (or its revocation) is trusted before asking Postgres again. */
  ttlMs: number;
  /** How long an unknown key is remembered as unknown (shorter: a new key should work soon). */
  negativeTtlMs: number;
  /** Entries kept; the oldest is dropped beyond this. */
  maxEntries: number;
  retryAfterSeconds: number;
  /** Longest wait for a key lookup; then 503 (Postgres is not answering). */
  queryTimeoutMs?: number;
}

interface Entry {
  projectId: string | null;
  keyId: string | null;
  revoked: boolean;
  expires: number;
}

export interface Principal {
  projectId: string;
  keyId: string;
  /** Hash of the key: a stable id for rate limiting that never holds the secret. */
  keyHash: string;
}

export function keyFromHeaders(headers: Record<string, string | string[] | undefined>): string | undefined {
  const auth = headers.authorization;
  const a = Array.isArray(auth) ? auth[0] : auth;
  if (a) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(a);
    if (m) return m[1];
  }
  const h = headers['x-guardtrace-api-key'];
  const k = (Array.isArray(h) ? h[0] : h)?.trim();
  return k || undefined;
}

// A lost notification connection is opened again after this long; meanwhile nothing is cached.
const RELISTEN_MS = 1_000;

export class KeyCache {
  private entries = new Map<string, Entry>();
  private listener: pg.Client | undefined;
  private listening = false;
  private closed = false;
  private relisten: NodeJS.Timeout | undefined;
  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: KeyCacheOptions,
  ) {}

  /**
   * Hears revocations (and new keys) as they commit, on every collector: the web app and
   * `revokeApiKey` announce the key's hash on API_KEY_CHANNEL, and its cached answer is dropped.
   * While the notification connection is down, answers are not cached at all, so no revocation
   * can be missed; it reconnects by itself.
   */
  async listen(connectionString: string): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString });
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      this.listening = false;
      this.entries.clear();
      client.end().catch(() => {});
      if (!this.closed) {
        this.relisten = setTimeout(() => void this.listen(connectionString).catch(() => {}), RELISTEN_MS);
        this.relisten.unref();
      }
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (n) => {
      if (n.channel === API_KEY_CHANNEL && n.payload) this.entries.delete(n.payload);
    });
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${API_KEY_CHANNEL}`);
      // Anything cached before now may have been revoked unheard.
      this.entries.clear();
      this.listening = true;
    } catch {
      lost();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.relisten);
    const client = this.listener;
    this.listener = undefined;
    this.listening = false;
    await client?.end().catch(() => {});
  }

  async authenticate(key: string | undefined): Promise<Principal> {
    if (!key) throw new CollectorError(401, 'missing API key: send Authorization: Bearer <key>');
    const hash = hashApiKey(key);
    const now = Date.now();
    let e = this.entries.get(hash);
    if (!e || e.expires <= now) {
      e = await this.lookup(hash, now);
      this.entries.delete(hash);
      if (this.listening) this.entries.set(hash, e);
      if (this.entries.size > this.opts.maxEntries) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
    }
    if (!e.projectId || !e.keyId) throw new CollectorError(401, 'unknown API key');
    if (e.revoked) throw new CollectorError(403, 'API key revoked');
    return { projectId: e.projectId, keyId: e.keyId, keyHash: hash };
  }

  private async lookup(hash: string, now: number): Promise<Entry> {
    try {
      const { rows } = await this.pool.query<{ id: string; project_id: string; revoked: boolean }>(
        timedQuery(
          'SELECT id::text, project_id::text, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE hash = $1',
          [hash],
          this.opts.queryTimeoutMs,
        ),
      );
      const row = rows[0];
      if (!row) return { projectId: null, keyId: null, revoked: false, expires: now + this.opts.negativeTtlMs };
      // Best effort, off the request path: the UI shows when a key was last used.
      this.pool.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [row.id]).catch(() => {});
      return { projectId: row.project_id, keyId: row.id, revoked: row.revoked, expires: now + this.opts.ttlMs };
    } catch (err) {
      if (isUnavailable(err)) {
        throw CollectorError.unavailable('database unavailable, retry later', this.opts.retryAfterSeconds, err);
      }
      throw err;
    }
  }
}
