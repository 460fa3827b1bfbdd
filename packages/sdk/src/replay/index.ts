/**
 * `@guardtrace/sdk/replay`: guard regression replay. Recorded tool calls (dataset items, as
 * `GET /v1/datasets/{id}` streams them and "Copy as test fixture" writes them) through the
 * current guards and policy, without running tools: what is newly rejected, newly allowed,
 * which class or feedback changed, and what in the tool's definition changed.
 */
export { replayItem, replayDataset, failedBy } from './replay.ts';
export type { ReplayOptions, ReplayDatasetOptions, ReplayProgress, DatasetLineError } from './replay.ts';
export { readDatasetFile } from './read.ts';
export { expectNoGuardRegressions } from './expect.ts';
export type { ExpectNoRegressionsOptions } from './expect.ts';
export { REPLAY_CHANGE, REPLAY_RUN_FORMAT, DATASET_ITEM_FORMAT } from '@guardtrace/semconv';
export type { DatasetItem, DatasetItemAttempt, DatasetItemCheck, ReplayChange, ReplayDecision, ReplayResult, ReplayRunReport } from '@guardtrace/semconv';
