/**
 * The seeds' context-replay cost model: every model call replays the system prompt and tool
 * schemas plus the history so far, so step k of an agent costs system + perStep * (k - 1)
 * input tokens, and a repair turn replays everything again with the error in history.
 */
export interface ReplayModel {
  /** System prompt + tool schemas. Seeds: 4,000 tokens. */
  systemTokens: number;
  /** History added per step. Seeds: about 2,000 tokens. */
  perStepTokens: number;
}

const SEED_REPLAY_MODEL: ReplayModel = { systemTokens: 4_000, perStepTokens: 2_000 };

/** Input tokens of the model call at 1-based `step` of a session. */
export function replayInputTokens(step: number, model: ReplayModel = SEED_REPLAY_MODEL): number {
  return model.systemTokens + model.perStepTokens * Math.max(0, step - 1);
}
