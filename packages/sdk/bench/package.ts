/**
 * What users download and wait for: the main entry `@guardtrace/sdk` as installed from the
 * packed tarballs in a throwaway npm project (outside the workspace), bundled and minified
 * with its dependencies but without its peers, then gzipped; and its import time in fresh
 * Node processes against a bare `node -e ""`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const SDK = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const SEMCONV = path.join(SDK, '../semconv');
const RUNS = 21;

export interface PackageBench {
  minGzipBytes: number;
  minBytes: number;
  /** Median fresh `node -e "import('@guardtrace/sdk')"` minus median bare `node -e ""`. */
  importMs: number;
  baselineMs: number;
  /** Median in-process time of `await import('@guardtrace/sdk')` once its peers (zod, @opentelemetry/api) are loaded. */
  ownImportMs: number;
  /** Median fresh `node -e` importing only the peers (zod, @opentelemetry/api) minus bare node. */
  peersImportMs: number;
  runs: number;
  loadAverage: number;
}

interface Row {
  benchmark: string;
  metric: string;
  value: string;
  target: string;
  pass: boolean;
}

const SIZE_TARGET_KB = 40;
const IMPORT_TARGET_MS = 60;

export const PACKAGE_METHOD =
  'Package: both packages built and packed (pnpm pack), installed with npm into a throwaway project under the OS temp dir with @opentelemetry/api 1.9.0 and zod 4.6.7;' +
  ' size = dist/index.js of the installed @guardtrace/sdk bundled by esbuild (platform neutral, so any Node built-in fails the bundle) with its dependencies and without' +
  ` its peers (@opentelemetry/api, zod), minified, gzip -9. Import time: ${RUNS} alternating fresh processes of node -e "import('@guardtrace/sdk')" and node -e "",` +
  ' difference of the medians (the same for a process importing only the peers, interleaved); own import = median in-process time of the import once zod and @opentelemetry/api are loaded (agents import both anyway). The 1-minute load average at the run is given: the machine is shared.';

export function packageRows(b: PackageBench): Row[] {
  const kb = b.minGzipBytes / 1000;
  return [
    { benchmark: 'package', metric: 'main entry, minified + gzip, peers excluded (kB)', value: `${kb.toFixed(1)} (${(b.minBytes / 1000).toFixed(1)} minified)`, target: `<= ${SIZE_TARGET_KB}`, pass: kb <= SIZE_TARGET_KB },
    {
      benchmark: 'package',
      metric: `import time over bare node, Node ${process.version} (ms, median of ${b.runs})`,
      value: `${b.importMs.toFixed(0)} (bare node ${b.baselineMs.toFixed(0)}, load avg ${b.loadAverage.toFixed(1)})`,
      target: `<= ${IMPORT_TARGET_MS}`,
      pass: b.importMs <= IMPORT_TARGET_MS,
    },
    {
      benchmark: 'package',
      metric: 'of which the peers alone: zod + @opentelemetry/api over bare node (ms)',
      value: b.peersImportMs.toFixed(0),
      target: '(reference)',
      pass: true,
    },
    { benchmark: 'package', metric: 'own import time, peers already loaded (ms)', value: b.ownImportMs.toFixed(1), target: `<= ${IMPORT_TARGET_MS}`, pass: b.ownImportMs <= IMPORT_TARGET_MS },
  ];
}

function sh(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

function timeNode(cwd: string, code: string): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['-e', code], { cwd, stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`node -e ${code} failed`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

export async function runPackageBench(): Promise<PackageBench> {
  const work = mkdtempSync(path.join(tmpdir(), 'gt-size-'));
  try {
    const tgz: string[] = [];
    for (const dir of [SEMCONV, SDK]) {
      sh('pnpm', ['run', 'build'], dir);
      const before = new Set(readdirSync(work));
      sh('pnpm', ['pack', '--pack-destination', work], dir);
      tgz.push(path.join(work, readdirSync(work).find((f) => f.endsWith('.tgz') && !before.has(f))!));
    }
    const project = path.join(work, 'project');
    mkdirSync(project);
    const deps = { '@guardtrace/semconv': `file:${tgz[0]}`, '@guardtrace/sdk': `file:${tgz[1]}`, '@opentelemetry/api': '1.9.0', zod: '4.6.7' };
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'gt-size', version: '0.0.0', private: true, dependencies: deps }));
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|pnpm_|PNPM_)/.test(k)));
    sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], project, env);

    // platform neutral: a Node built-in anywhere in the graph fails the bundle
    const bundle = await build({
      entryPoints: [path.join(project, 'node_modules/@guardtrace/sdk/dist/index.js')],
      absWorkingDir: project,
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      external: ['@opentelemetry/api', 'zod'],
      write: false,
      logLevel: 'silent',
    });
    const code = bundle.outputFiles[0]!.contents;

    const own: number[] = [];
    const OWN = "await import('zod'); await import('@opentelemetry/api'); const t = performance.now(); await import('@guardtrace/sdk'); console.log(performance.now() - t);";
    for (let i = 0; i < RUNS; i++) own.push(Number(sh(process.execPath, ['--input-type=module', '-e', OWN], project).trim()));
    const loadAverage = loadavg()[0] ?? Number.NaN;
    const imp: number[] = [];
    const bare: number[] = [];
    const peers: number[] = [];
    const PEERS = "Promise.all([import('zod'), import('@opentelemetry/api')])";
    timeNode(project, "import('@guardtrace/sdk')"); // warm the file-system cache once
    for (let i = 0; i < RUNS; i++) {
      bare.push(timeNode(project, ''));
      imp.push(timeNode(project, "import('@guardtrace/sdk')"));
      peers.push(timeNode(project, PEERS));
    }
    // the installed package must really be the tarball's dist (no workspace source)
    const installed = JSON.parse(readFileSync(path.join(project, 'node_modules/@guardtrace/sdk/package.json'), 'utf8')) as { exports: unknown };
    if (!JSON.stringify(installed.exports).includes('./dist/index.js')) throw new Error('installed @guardtrace/sdk is not the packed dist');
    return { minBytes: code.byteLength, minGzipBytes: gzipSync(code, { level: 9 }).byteLength, importMs: median(imp) - median(bare), baselineMs: median(bare), ownImportMs: median(own), peersImportMs: median(peers) - median(bare), runs: RUNS, loadAverage };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// `pnpm --filter @guardtrace/sdk bench:package`: only these rows, merged into bench/results.json
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const b = await runPackageBench();
  const file = path.join(SDK, 'bench/results.json');
  const results = JSON.parse(readFileSync(file, 'utf8')) as { rows: Row[]; method?: string; date?: string };
  results.rows = [...results.rows.filter((r) => r.benchmark !== 'package'), ...packageRows(b)];
  results.method = `${(results.method ?? '').split(' Package: ')[0]} ${PACKAGE_METHOD} Package rows measured ${new Date().toISOString()} (the other rows: the run date below).`.trim();
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.table(packageRows(b));
}
