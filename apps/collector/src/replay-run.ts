/**
 * A replay run report (`@guardtrace/semconv`'s ReplayRunReport) as the runner uploads it to
 * `POST /v1/datasets/{id}/runs`: validated here field by field, so a bad upload is refused with
 * the path of each bad field (`results[3].change: ...`) and nothing of it is stored.
 */
import {
  type DatasetItemCheck,
  REPLAY_CHANGE,
  REPLAY_RUN_FORMAT,
  type ReplayChange,
  type ReplayDecision,
  type ReplayResult,
  type ReplayRunReport,
} from '@guardtrace/semconv';
import { z } from 'zod';

const CHANGES = Object.values(REPLAY_CHANGE) as [ReplayChange, ...ReplayChange[]];

// Text fields are bounded so one report cannot hold a megabyte label; feedback and reasons
// are the texts the model was shown, which the SDK already caps well below this.
const text = (max: number) => z.string().max(max);
const nullableText = (max: number) => text(max).nullable();
const iso = z.iso.datetime({ offset: true });

const check: z.ZodType<DatasetItemCheck> = z.object({
  guard: text(200),
  stage: nullableText(50),
  verdict: z.enum(['pass', 'fail']),
  reason: nullableText(20_000),
  failureClass: nullableText(100),
  pointers: z.array(text(2_000)).max(1_000),
});

const decision: z.ZodType<ReplayDecision> = z.object({
  allowed: z.boolean(),
  decision: nullableText(100),
  failureClass: nullableText(100),
  feedback: nullableText(100_000),
  checks: z.array(check).max(1_000),
});

const result: z.ZodType<ReplayResult> = z.object({
  itemId: text(300).min(1),
  attempt: z.int().min(1),
  tool: text(300),
  sessionId: text(1_000),
  stepPath: text(4_000),
  change: z.enum(CHANGES),
  arguments: z.unknown(),
  recorded: decision,
  now: decision.nullable(),
  definition: z.object({
    recordedHash: nullableText(64),
    currentHash: text(64),
    changes: z.array(text(2_000)).max(1_000),
  }),
  error: text(20_000).optional(),
});

const counts = Object.fromEntries(CHANGES.map((c) => [c, z.int().min(0)])) as Record<ReplayChange, z.ZodInt>;

const report: z.ZodType<ReplayRunReport> = z.object({
  format: z.literal(REPLAY_RUN_FORMAT),
  datasetId: z.string().nullable(),
  label: nullableText(500),
  startedAt: iso,
  finishedAt: iso,
  options: z.object({
    execute: z.enum(['none', 'read-only']),
    failOn: z.array(z.enum(CHANGES)),
  }),
  summary: z.object({ calls: z.int().min(0), attempts: z.int().min(0), ...counts }),
  results: z.array(result),
});

// A refusal names this many bad fields at most (the rest are counted).
const MAX_ISSUES_NAMED = 5;

/** `['results', 3, 'change']` → `results[3].change`. */
function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const k of path) out += typeof k === 'number' ? `[${k}]` : out === '' ? String(k) : `.${String(k)}`;
  return out || '(the body)';
}

/** The report, or a message naming each bad field by its path. */
export function parseRunReport(value: unknown): { ok: true; report: ReplayRunReport } | { ok: false; message: string } {
  const parsed = report.safeParse(value);
  if (parsed.success) return { ok: true, report: parsed.data };
  const issues = parsed.error.issues;
  const named = issues.slice(0, MAX_ISSUES_NAMED).map((i) => `${fieldPath(i.path)}: ${i.message}`);
  const more = issues.length > MAX_ISSUES_NAMED ? `; and ${issues.length - MAX_ISSUES_NAMED} more` : '';
  return { ok: false, message: `not a ${REPLAY_RUN_FORMAT} report: ${named.join('; ')}${more}` };
}
