import type { Decision, FailureClass } from '@guardtrace/semconv';
import type { GuardRecord } from './types.ts';

/**
 * Progress of one logical call (a call and the model's corrections of it): what each failed
 * attempt objected to, so the policy can tell a model converging on a valid call from one
 * going round in circles. A correction makes progress when its failing JSON pointers are
 * fewer than the previous attempt's (a strict subset is always fewer), or when it fails in
 * another class (it got past the stage that stopped the last one).
 */
export interface ProgressView {
  /** The same tool with canonically equal arguments as an earlier attempt the model was asked to correct. */
  repeated: boolean;
  /** Whether progress can be measured: the previous attempt was a rejection and both name their failing pointers (or the class changed). */
  measured: boolean;
  /** Measured, and this correction is closer than the previous attempt. */
  progressing: boolean;
  /** Measured corrections in a row, up to this one, that made no progress. */
  stalled: number;
  /** Corrections the model already sent in this call (this attempt included, the first call not). */
  corrections: number;
}

interface Entry {
  tool: string;
  args: string;
  failureClass: FailureClass;
  pointers: ReadonlySet<string>;
  /** The model was sent this rejection and asked for a corrected call. */
  toModel: boolean;
  stalled: number;
}

const TO_MODEL: ReadonlySet<Decision> = new Set(['reject_with_feedback', 'corrected_retry']);

/** The union of the failing guards' pointers of an attempt. */
export function failingPointers(guards: readonly GuardRecord[]): Set<string> {
  const out = new Set<string>();
  for (const g of guards) if (g.verdict === 'fail' && g.pointers) for (const p of g.pointers) out.add(p);
  return out;
}

function closer(now: ReadonlySet<string>, before: ReadonlySet<string>): boolean {
  return now.size < before.size;
}

/** The failed attempts of one logical call, for the policy's progress rule. */
export class CallProgress {
  readonly #entries: Entry[] = [];
  #spent = 0;

  /** Rejections of this call that spend the rejection budget (`rejectionsScope: 'call'`): a closer correction does not. */
  get spentRejections(): number {
    return this.#spent;
  }

  /** How this failed attempt compares with the call's earlier ones. */
  assess(tool: string, args: string, failureClass: FailureClass, pointers: ReadonlySet<string>): ProgressView {
    const entries = this.#entries;
    const repeated = entries.some((e) => e.toModel && e.tool === tool && e.args === args);
    let corrections = 0;
    for (const e of entries) if (e.toModel) corrections += 1;
    const prev = entries.at(-1);
    if (!prev?.toModel) return { repeated, measured: false, progressing: false, stalled: 0, corrections };
    let progressing: boolean;
    if (prev.failureClass !== failureClass) progressing = true;
    else if (prev.pointers.size > 0 && pointers.size > 0) progressing = closer(pointers, prev.pointers);
    else return { repeated, measured: false, progressing: false, stalled: 0, corrections };
    return { repeated, measured: true, progressing, stalled: progressing ? 0 : prev.stalled + 1, corrections };
  }

  /** Books the attempt once the policy decided on it. */
  record(tool: string, args: string, failureClass: FailureClass, pointers: ReadonlySet<string>, decision: Decision, view: ProgressView): void {
    const toModel = TO_MODEL.has(decision);
    if (toModel && !(view.measured && view.progressing)) this.#spent += 1;
    this.#entries.push({ tool, args, failureClass, pointers, toModel, stalled: view.stalled });
  }
}
