import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The rules and options, one file for this test and for `pnpm arch`. */
export const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
/** What the cruise starts from: every part of the workspace. */
const PARTS = ['apps', 'packages', 'e2e', 'scripts', 'tools'];

/**
 * Cruises `parts` (folders relative to `baseDir`) with the repository's rules and options,
 * exactly as the `depcruise` command line does with `--config .dependency-cruiser.cjs`.
 */
export async function cruiseWithRules(baseDir: string, parts: string[] = PARTS): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(CONFIG);
  const tsConfigFile = options.tsConfig?.fileName;
  const tsConfig = tsConfigFile ? extractTSConfig(tsConfigFile) : undefined;
  const { output } = await cruise(parts, { ...options, baseDir, outputType: 'json' }, {}, { tsConfig });
  return typeof output === 'string' ? (JSON.parse(output) as ICruiseResult) : output;
}

/** Violations as `rule: from -> to` lines, so a failing assertion reads like the CLI. */
export function describeViolations(result: ICruiseResult): string[] {
  return result.summary.violations.map((v) => `${v.rule.name} (${v.rule.severity}): ${v.from} -> ${v.to}`);
}
