import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '@guardtrace/db/dev';
import { fileOutput, ROOT, startSystem } from '../scripts/system.ts';
import { saveOwnerState } from './sign-in.ts';

/**
 * Starts the whole system on free ports with a throwaway database and the demo agent's sessions,
 * and signs the first owner in with its one-time link, as `npm start` prints it (sign-in.ts).
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const logFile = path.join(ROOT, 'e2e/test-results/system.log');
  rmSync(logFile, { force: true });
  // Revoking a key in the UI must bite within a second here (the collector caches key lookups).
  process.env.COLLECTOR_KEY_CACHE_TTL_MS = '1000';
  // The cookie secret, known to the tests: a spec that starts a web server of its own on this
  // database signs in with the shared server's session cookies (first-request-replay.spec.ts).
  // Alert rules evaluated every second (production: every minute), so alerts.spec.ts sees a spike fire and resolve.
  process.env.GUARDTRACE_ALERTS_INTERVAL_SECONDS = '1';
  process.env.GUARDTRACE_AUTH_SECRET ||= randomBytes(32).toString('base64url');
  // Ports are picked free, then bound by the child processes a moment later: another socket can
  // take one in between (a CI run once lost its web app to EADDRINUSE on its picked port, an
  // outgoing connection's port). Started again, on other ports, up to three times.
  let system: Awaited<ReturnType<typeof startSystem>> | undefined;
  for (let attempt = 1; system === undefined; attempt++) {
    try {
      system = await startSystem({
        throwaway: true,
        collectorPort: await freePort(),
        webPort: await freePort(),
        demo: 'always',
        build: false,
        log: fileOutput(logFile).bind(null, 'start'),
        childOutput: fileOutput(logFile),
      });
    } catch (err) {
      if (attempt >= 3) throw err;
      console.warn(`[e2e] the system did not start (${(err as Error).message}); starting it again on other ports`);
    }
  }
  process.env.GUARDTRACE_WEB_URL = system.webUrl;
  process.env.GUARDTRACE_COLLECTOR_URL = system.collectorUrl;
  process.env.GUARDTRACE_DATABASE_URL = system.databaseUrl;
  process.env.GUARDTRACE_PROJECT_ID = system.projectId;
  process.env.GUARDTRACE_API_KEY = system.createdApiKey ?? '';
  process.env.GUARDTRACE_DEMO_SESSIONS = String(system.demoSessions);
  process.env.GUARDTRACE_OWNER_EMAIL = system.ownerEmail;
  await saveOwnerState(system.signInUrl);
  return () => system.stop();
}
