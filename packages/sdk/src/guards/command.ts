/**
 * `@guardtrace/sdk/guards/command`: post-execution gates that run a command (compiler,
 * linter, fast tests) through `node:child_process` and roll files back (Node only).
 */
export { CommandGate, FileSnapshot, runCommand } from './command-gate.ts';
export type { CommandGateOptions, GateResult } from './command-gate.ts';
export { parseDiagnostics, diagnosticsFeedback } from './diagnostics.ts';
export type { Diagnostic } from './diagnostics.ts';
