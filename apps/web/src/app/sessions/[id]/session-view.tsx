import { formatInt, formatOffset } from '@/lib/format';
import { hrefWith } from '@/lib/search-params';
import { db } from '@/server/db';
import { getSessionDetail } from '@/server/queries/session';
import type { TimelineStepDto } from '@/server/queries/session-types';
import { SessionHeader } from './header';
import { ReplayBar } from './replay';
import { GuardRow, ModelCallRow, RawSpanRow } from './steps';
import { ToolCallCard } from './tool-call';

function stepLabel(s: TimelineStepDto): string {
  if (s.kind === 'tool') return `tool ${s.toolName}`;
  if (s.kind === 'model') return `model ${s.model ?? ''}`.trim();
  if (s.kind === 'guard') return `guard ${s.guardName}`;
  return `span ${s.name}`;
}

/** Tokens spent by the model calls up to and including `step`: the replay's running total. */
function tokensUpTo(steps: TimelineStepDto[], step: number): { tokens: number; repair: number } {
  let tokens = 0;
  let repair = 0;
  for (const s of steps.slice(0, step)) {
    if (s.kind !== 'model') continue;
    tokens += s.inputTokens + s.outputTokens;
    if (s.repairFailureClass) repair += s.inputTokens + s.outputTokens;
  }
  return { tokens, repair };
}

export async function SessionView({ project, id, step }: { project: string; id: string; step: number | null }) {
  const detail = await getSessionDetail(db(), project, id);
  if (!detail) return null;
  const { session, steps } = detail;
  const current = step === null ? null : Math.min(step, Math.max(steps.length, 1));
  const path = `/sessions/${encodeURIComponent(id)}`;
  const currentStep = current === null ? undefined : steps[current - 1];
  const progress = current === null ? null : tokensUpTo(steps, current);
  return (
    <>
      <SessionHeader s={session} project={project} />
      <ReplayBar
        step={steps.length ? current : null}
        total={steps.length}
        hrefFor={(n) => hrefWith(path, { project, step: n })}
        label={currentStep ? stepLabel(currentStep) : null}
        progress={
          progress ? `${formatInt(progress.tokens)} tokens so far · ${formatInt(progress.repair)} repair` : null
        }
      />
      {steps.length === 0 ? (
        <div className="rounded-lg border border-dashed border-slate-300 bg-white px-6 py-12 text-center text-sm text-slate-600">
          No model calls, tool calls or spans recorded for this session.
        </div>
      ) : (
        <ol className="relative space-y-3 border-l-2 border-slate-200 pl-6" data-testid="timeline">
          {steps.map((s) => {
            const isCurrent = current === s.step;
            const future = current !== null && s.step > current;
            return (
              <li
                key={`${s.kind}:${s.traceId}:${s.spanId}`}
                id={`step-${s.step}`}
                data-testid="step"
                data-step={s.step}
                data-kind={s.kind}
                data-current={isCurrent ? 'true' : undefined}
                className={`relative scroll-mt-36 transition-opacity ${future ? 'opacity-40' : ''} ${
                  isCurrent ? 'rounded-lg ring-2 ring-indigo-500 ring-offset-4 ring-offset-slate-50' : ''
                }`}
              >
                <span
                  className={`absolute -left-[37px] top-2.5 grid size-6 place-items-center rounded-full text-[11px] font-semibold tabular-nums ring-4 ring-slate-50 ${
                    isCurrent ? 'bg-indigo-600 text-white' : 'bg-slate-200 text-slate-700'
                  }`}
                >
                  <span className="sr-only">Step </span>
                  {s.step}
                </span>
                <div className="mb-1 font-mono text-[11px] text-slate-400">{formatOffset(session.startedAt, s.startedAt)}</div>
                {s.kind === 'tool' ? <ToolCallCard call={s} project={project} sessionId={id} /> : null}
                {s.kind === 'model' ? <ModelCallRow call={s} /> : null}
                {s.kind === 'guard' ? <GuardRow check={s} /> : null}
                {s.kind === 'span' ? <RawSpanRow span={s} /> : null}
              </li>
            );
          })}
        </ol>
      )}
      {detail.truncated ? (
        <p className="mt-4 text-sm text-amber-700">This session is very large: only the first rows of each kind are shown.</p>
      ) : null}
    </>
  );
}
