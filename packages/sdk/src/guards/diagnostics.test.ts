import { describe, expect, it } from 'vitest';
import { diagnosticsFeedback, parseDiagnostics } from './diagnostics.ts';

describe('parseDiagnostics', () => {
  it('parses tsc plain and pretty output', () => {
    const out = [
      "src/routes.ts(14,5): error TS2304: Cannot find name 'UserRequest'.",
      "src/a.ts:3:1 - error TS2322: Type 'string' is not assignable to type 'number'.",
      '',
      'Found 2 errors in 2 files.',
    ].join('\n');
    expect(parseDiagnostics(out)).toEqual([
      { tool: 'tsc', file: 'src/routes.ts', line: 14, column: 5, severity: 'error', code: 'TS2304', message: "Cannot find name 'UserRequest'." },
      { tool: 'tsc', file: 'src/a.ts', line: 3, column: 1, severity: 'error', code: 'TS2322', message: "Type 'string' is not assignable to type 'number'." },
    ]);
  });

  it('parses eslint unix and stylish output', () => {
    const unix = "/w/src/routes.ts:42:7: 'logger' is defined but never used. [Error/no-unused-vars]\n\n1 problem";
    expect(parseDiagnostics(unix)).toEqual([
      { tool: 'eslint', file: '/w/src/routes.ts', line: 42, column: 7, severity: 'error', code: 'no-unused-vars', message: "'logger' is defined but never used." },
    ]);
    const stylish = [
      '',
      '/w/src/routes.ts',
      "  42:7  error  'logger' is defined but never used  no-unused-vars",
      '  50:1  warning  Unexpected console statement  no-console',
      '',
      '✖ 2 problems (1 error, 1 warning)',
    ].join('\n');
    expect(parseDiagnostics(stylish)).toEqual([
      { tool: 'eslint', file: '/w/src/routes.ts', line: 42, column: 7, severity: 'error', code: 'no-unused-vars', message: "'logger' is defined but never used" },
      { tool: 'eslint', file: '/w/src/routes.ts', line: 50, column: 1, severity: 'warning', code: 'no-console', message: 'Unexpected console statement' },
    ]);
  });

  it('renders the seed feedback', () => {
    const d = parseDiagnostics("src/routes.ts(14,5): error TS2304: Cannot find name 'UserRequest'.\n/w/src/routes.ts:42:7: 'logger' is defined but never used. [Error/no-unused-vars]");
    expect(diagnosticsFeedback(['src/routes.ts'], d, '')).toBe(
      [
        'Validation failed after edit to src/routes.ts:',
        "  - TypeScript error TS2304: Cannot find name 'UserRequest'. (src/routes.ts:14:5)",
        "  - ESLint: 'logger' is defined but never used. (/w/src/routes.ts line 42) [no-unused-vars]",
        'The edit was rolled back. Fix these and send the edit again.',
      ].join('\n'),
    );
  });
});
