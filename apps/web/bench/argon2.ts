/**
 * Sign-in password hashing: hash and verify time of argon2id with the parameters the app uses
 * (src/server/password.ts), beside OWASP's other recommended argon2id minimums (Password
 * Storage Cheat Sheet: each line costs about the same), in one run with the rounds interleaved,
 * so the machine's load falls on each alike. Then many sign-ins at once with the app's
 * parameters: what a flood costs the web process. Writes bench/argon2.json.
 *   pnpm --filter @guardtrace/web run bench:argon2      (or `pnpm bench argon2`)
 * Knobs: ARGON2_BENCH_ROUNDS (default 15), ARGON2_BENCH_CONCURRENT (default 16).
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hash, verify } from '@node-rs/argon2';
import { ARGON2, hashPassword, verifyPassword } from '../src/server/password.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const intEnv = (name: string, fallback: number) => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}=${v}: expected a positive integer`);
  return n;
};
// 15 timed rounds per setting after 2 warm-ups: a stable median and p95 on a noisy machine in ~30 s.
const ROUNDS = intEnv('ARGON2_BENCH_ROUNDS', 15);
const WARMUP = 2;
// 16 sign-ins at once: more than libuv's 4 threads, so the queueing shows.
const CONCURRENT = intEnv('ARGON2_BENCH_CONCURRENT', 16);

// OWASP's argon2id minimums (memory KiB, passes, lanes), all meant to be equally strong.
const OWASP = [
  { memoryCost: 47_104, timeCost: 1 },
  { memoryCost: 19_456, timeCost: 2 },
  { memoryCost: 12_288, timeCost: 3 },
  { memoryCost: 9_216, timeCost: 4 },
  { memoryCost: 7_168, timeCost: 5 },
].map((p) => ({ ...p, algorithm: ARGON2.algorithm, parallelism: 1 }));

interface Row {
  benchmark: string;
  metric: string;
  value: string;
  target: string;
  pass: boolean;
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};
const ms = (n: number) => `${n.toFixed(1)} ms`;
const timed = async (f: () => Promise<unknown>) => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};
const load = () => os.loadavg()[0]?.toFixed(1) ?? '?';

const PASSWORD = 'correct horse battery staple 42';
const started = new Date();
const loadBefore = load();
const settings = [{ name: 'app: src/server/password.ts', params: ARGON2, app: true }, ...OWASP.map((p) => ({ name: 'OWASP', params: p, app: false }))];
const label = (p: { memoryCost: number; timeCost: number; parallelism: number }) => `m=${Math.round(p.memoryCost / 1024)} MiB, t=${p.timeCost}, p=${p.parallelism}`;
const times = settings.map(() => ({ hash: [] as number[], verify: [] as number[] }));
const stored = await Promise.all(settings.map((s) => (s.app ? hashPassword(PASSWORD) : hash(PASSWORD, s.params))));
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  for (const [i, s] of settings.entries()) {
    const h = await timed(() => (s.app ? hashPassword(PASSWORD) : hash(PASSWORD, s.params)));
    const v = await timed(async () => {
      const ok = s.app ? await verifyPassword(stored[i] as string, PASSWORD) : await verify(stored[i] as string, PASSWORD);
      if (!ok) throw new Error(`verify failed for ${label(s.params)}`);
    });
    if (round >= WARMUP) {
      times[i]?.hash.push(h);
      times[i]?.verify.push(v);
    }
  }
}
// A flood of sign-ins with the app's parameters: CONCURRENT verifies started at once.
const appHash = stored[0] as string;
const floodStart = performance.now();
const each = await Promise.all(Array.from({ length: CONCURRENT }, () => timed(() => verifyPassword(appHash, PASSWORD))));
const floodSeconds = (performance.now() - floodStart) / 1000;
const loadAfter = load();

const appVerify = quantile(times[0]?.verify ?? [], 0.5);
const owaspSame = settings.findIndex((s, i) => i > 0 && s.params.memoryCost === ARGON2.memoryCost && s.params.timeCost === ARGON2.timeCost);
const rows: Row[] = settings.map((s, i) => {
  const t = times[i] as { hash: number[]; verify: number[] };
  return {
    benchmark: `argon2id ${label(s.params)} (${s.name})`,
    metric: 'hash / verify p50 (p95)',
    value: `${ms(quantile(t.hash, 0.5))} (${ms(quantile(t.hash, 0.95))}) / ${ms(quantile(t.verify, 0.5))} (${ms(quantile(t.verify, 0.95))})`,
    target: s.app ? 'at least an OWASP minimum; verify p50 <= 500 ms' : '(comparison)',
    pass: s.app ? quantile(t.verify, 0.5) <= 500 && owaspSame > 0 : true,
  };
});
rows.push({
  benchmark: `${CONCURRENT} sign-ins at once (app parameters)`,
  metric: 'verifies/s; p50 / max wait',
  value: `${(CONCURRENT / floodSeconds).toFixed(1)}/s; ${ms(quantile(each, 0.5))} / ${ms(Math.max(...each))}`,
  target: '(informational)',
  pass: true,
});
// What the throttles let one address and one account cost the server (auth-config.ts).
rows.push({
  benchmark: 'sign-in throttle bound (5 tries/min per IP, 10 failures/15 min per account)',
  metric: 'CPU per address',
  value: `${((5 * appVerify) / 60_000 * 100).toFixed(3)}% of a core (5 × ${ms(appVerify)} a minute)`,
  target: '(informational)',
  pass: true,
});
const results = {
  rows,
  machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  date: started.toISOString(),
  method:
    `@node-rs/argon2 in one process, hash then verify of a 31-character password for each setting in turn, ` +
    `${ROUNDS} rounds after ${WARMUP} warm-ups (interleaved, so outside load falls on each setting alike); ` +
    `the app's row uses its own hashPassword/verifyPassword. Then ${CONCURRENT} verifies started at once ` +
    `(libuv's thread pool runs ${process.env.UV_THREADPOOL_SIZE ?? 4} at a time). Load average ${loadBefore} before, ${loadAfter} after.`,
};
writeFileSync(path.join(HERE, 'argon2.json'), `${JSON.stringify(results, null, 2)}\n`);
console.table(rows);
