export { insideWorkspace, fileExists, lineRange, resourceLock, predicate, pathCandidates, pathNotFoundFeedback } from './files.ts';
export { sqlHeuristics, sqlViolation } from './sql.ts';
export type { SqlHeuristicsOptions } from './sql.ts';
export { CommandGate, FileSnapshot, runCommand } from './command-gate.ts';
export type { CommandGateOptions, GateResult } from './command-gate.ts';
export { parseDiagnostics, diagnosticsFeedback } from './diagnostics.ts';
export type { Diagnostic } from './diagnostics.ts';
export { resolveInside } from './paths.ts';
export type { PathsOf } from './paths.ts';
