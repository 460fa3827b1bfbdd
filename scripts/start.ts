/** `pnpm start`: the whole product on the embedded database (or DATABASE_URL), with demo data. */
import { assertPortFree, PortInUseError, startSystem } from './system.ts';

const env = process.env;
const port = (name: string, def: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0 || n > 65535) {
    console.error(`${name} must be a port number (1-65535), got "${raw}"`);
    process.exit(2);
  }
  return n;
};
const demo = env.GUARDTRACE_DEMO ?? 'auto';
if (demo !== 'auto' && demo !== 'always' && demo !== 'never') {
  console.error(`GUARDTRACE_DEMO must be auto, always or never, got "${demo}"`);
  process.exit(2);
}

// 4318 is the OTLP/HTTP port every OpenTelemetry exporter defaults to.
const collectorPort = port('GUARDTRACE_COLLECTOR_PORT', 4318);
const webPort = port('GUARDTRACE_WEB_PORT', 3000);
/** A taken port, said at once (before the database and the build) with the setting that moves it. */
const portTaken = (err: unknown): never => {
  if (!(err instanceof PortInUseError)) throw err;
  const setting = err.which === 'web' ? 'GUARDTRACE_WEB_PORT' : 'GUARDTRACE_COLLECTOR_PORT';
  console.error(
    `${err.message} (another program holds it, or Guardtrace is already running). ` +
      `Stop that program, or start on another port: ${setting}=<port> npm start`,
  );
  process.exit(2);
};
await assertPortFree('collector', collectorPort, '127.0.0.1').catch(portTaken);
await assertPortFree('web', webPort, '127.0.0.1').catch(portTaken);

const system = await startSystem({
  databaseUrl: env.DATABASE_URL || undefined,
  dataDir: env.GUARDTRACE_DATA_DIR || undefined,
  collectorPort,
  webPort,
  demo,
  build: true,
}).catch(portTaken);

const lines = [
  '',
  'Guardtrace is running.',
  `  Web app:        ${system.webUrl}/sessions`,
  `  Sign in:        ${system.signInUrl}`,
  `                  (once, within 30 minutes, as ${system.ownerEmail}; a new one: npm run sign-in-link)`,
  `  OTLP endpoint:  ${system.collectorUrl}/v1/traces`,
];
if (system.createdApiKey) {
  lines.push(`  API key:        ${system.createdApiKey}`);
  lines.push('                  (shown once: it is stored hashed; send it as "Authorization: Bearer <key>")');
} else {
  // A reused database: its key was shown when it was made; a new one is a click away.
  lines.push(`  API keys:       ${system.webUrl}/settings (a new key is shown once, when created)`);
}
if (system.demoSessions) lines.push(`  Demo agent:     ${system.demoSessions} sessions recorded`);
lines.push('Press Ctrl-C to stop.', '');
console.log(lines.join('\n'));

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping...');
  await system.stop();
  // Let Node exit on its own (process.exit here races the terminal reset when npm/pnpm
  // parents have already gone); a stray handle must not keep it alive, though.
  process.exitCode = 0;
  setTimeout(() => process.exit(0), 3000).unref();
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
