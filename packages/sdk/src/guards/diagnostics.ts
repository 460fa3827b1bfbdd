/** Diagnostics parsed from compiler and linter output: the feedback of a post-execution gate. */
export interface Diagnostic {
  tool: 'tsc' | 'eslint';
  file: string;
  line: number;
  column?: number;
  /** `TS2304`, or the ESLint rule id. */
  code?: string;
  severity: 'error' | 'warning';
  message: string;
}

// src/a.ts(14,5): error TS2304: Cannot find name 'X'.
const TSC_PLAIN = /^(.+?)\((\d+),(\d+)\): (error|warning) (TS\d+): (.+)$/;
// src/a.ts:14:5 - error TS2304: Cannot find name 'X'.   (tsc --pretty)
const TSC_PRETTY = /^(.+?):(\d+):(\d+) - (error|warning) (TS\d+): (.+)$/;
// /abs/file.js:42:7: 'logger' is defined but never used. [Error/no-unused-vars]   (eslint -f unix)
const ESLINT_UNIX = /^(.+?):(\d+):(\d+): (.+?) \[(Error|Warning)(?:\/([\w@/-]+))?\]$/;
// "  42:7  error  'logger' is defined but never used  no-unused-vars"   (eslint stylish, under a file header)
const ESLINT_STYLISH = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.+?)(?:\s{2,}([\w@/-]+))?\s*$/;

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes
const ANSI = /\u001b\[[0-9;]*m/g;

/** Parses tsc (plain or pretty) and ESLint (unix or stylish) output. Unrecognised lines are skipped. */
export function parseDiagnostics(output: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  let stylishFile: string | undefined;
  for (const raw of output.replace(ANSI, '').split(/\r?\n/)) {
    const line = raw.trimEnd();
    let m = TSC_PLAIN.exec(line) ?? TSC_PRETTY.exec(line);
    if (m) {
      out.push({ tool: 'tsc', file: m[1]!, line: Number(m[2]), column: Number(m[3]), severity: m[4] as 'error', code: m[5]!, message: m[6]! });
      continue;
    }
    m = ESLINT_UNIX.exec(line);
    if (m) {
      const d: Diagnostic = { tool: 'eslint', file: m[1]!, line: Number(m[2]), column: Number(m[3]), severity: m[5] === 'Warning' ? 'warning' : 'error', message: m[4]! };
      if (m[6]) d.code = m[6];
      out.push(d);
      continue;
    }
    m = ESLINT_STYLISH.exec(line);
    if (m && stylishFile) {
      const d: Diagnostic = { tool: 'eslint', file: stylishFile, line: Number(m[1]), column: Number(m[2]), severity: m[3] as 'error', message: m[4]!.trim() };
      if (m[5]) d.code = m[5];
      out.push(d);
      continue;
    }
    if (line !== '' && !line.startsWith(' ') && !/^✖|problems?\b/.test(line)) stylishFile = line;
  }
  return out;
}

/** The seed's feedback text: one line per diagnostic, bounded. */
export function diagnosticsFeedback(files: string[], diags: Diagnostic[], rawTail: string, limit = 20): string {
  const head = `Validation failed after edit to ${files.join(', ') || 'the workspace'}:`;
  if (diags.length === 0) return `${head}\n${rawTail.trim().split('\n').slice(-limit).join('\n')}`;
  const lines = diags.slice(0, limit).map((d) =>
    d.tool === 'tsc'
      ? `  - TypeScript error ${d.code}: ${d.message} (${d.file}:${d.line}${d.column ? `:${d.column}` : ''})`
      : `  - ESLint: ${d.message} (${d.file} line ${d.line})${d.code ? ` [${d.code}]` : ''}`,
  );
  if (diags.length > limit) lines.push(`  ... and ${diags.length - limit} more`);
  return `${head}\n${lines.join('\n')}\nThe edit was rolled back. Fix these and send the edit again.`;
}
