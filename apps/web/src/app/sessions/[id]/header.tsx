import { ErrorsInsideBadge, OutcomeBadge } from '@/components/badges';
import { formatCost } from '@/lib/cost';
import { formatDateTime, formatDuration, formatInt, formatWeight } from '@/lib/format';
import { hrefWith } from '@/lib/search-params';
import type { SessionHeaderDto } from '@/server/queries/session-types';

function Stat({ label, value, tone, testId, note }: { label: string; value: string; tone?: string; testId?: string; note?: string }) {
  return (
    <div className="rounded-md border border-slate-200 bg-white px-4 py-3">
      <dt className="text-[11px] font-semibold uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className={`mt-1 text-lg font-semibold tabular-nums ${tone ?? 'text-slate-900'}`} data-testid={testId}>
        {value}
      </dd>
      {note ? (
        <dd className="text-[11px] text-slate-500" data-testid={testId ? `${testId}-note` : undefined}>
          {note}
        </dd>
      ) : null}
    </div>
  );
}

export function SessionHeader({ s, project }: { s: SessionHeaderDto; project: string }) {
  return (
    <section data-testid="session-header" className="mb-6">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="min-w-0 font-mono text-xl font-semibold tracking-tight wrap-anywhere" data-testid="session-id">
          {s.id}
        </h1>
        {s.outcome ? <OutcomeBadge outcome={s.outcome} /> : null}
        {s.outcome !== 'failed' ? <ErrorsInsideBadge failedAttempts={s.failedAttemptCount} errorSpans={s.errorSpanCount} /> : null}
        {/* A download of the raw spans (OTLP JSON): POST it to a collector with another project's key to import it. */}
        <a
          href={hrefWith(`/sessions/${encodeURIComponent(s.id)}/export`, { project })}
          download
          data-testid="session-export"
          className="ml-auto rounded-md border border-slate-300 bg-white px-2.5 py-1 text-xs font-medium text-slate-700 hover:bg-slate-50"
        >
          Export OTLP JSON
        </a>
        {/* Prompts and completions that came as GenAI events (/v1/logs) are not spans: a file of their own, for /v1/logs. */}
        {s.genAiEvents ? (
          <a
            href={hrefWith(`/sessions/${encodeURIComponent(s.id)}/export`, { project, part: 'logs' })}
            download
            data-testid="session-export-logs"
            className="rounded-md border border-slate-300 bg-white px-2.5 py-1 text-xs font-medium text-slate-700 hover:bg-slate-50"
          >
            Export GenAI events (OTLP logs JSON)
          </a>
        ) : null}
      </div>
      <p className="mt-1 text-sm text-slate-600 wrap-anywhere">
        {s.agentName ? <span className="font-medium text-slate-800">{s.agentName}</span> : 'Unknown agent'}
        {s.serviceName ? <> · {s.serviceName}</> : null}
        {s.userId ? (
          <>
            {' '}
            · user{' '}
            <span data-testid="session-user" className="font-mono text-slate-800">
              {s.userId}
            </span>
          </>
        ) : null}{' '}
        · started {formatDateTime(s.startedAt)}
        {s.samplingWeight !== 1 ? <> · sampling weight {formatWeight(s.samplingWeight)}</> : null}
      </p>
      <dl className="mt-4 grid grid-cols-2 gap-3 sm:grid-cols-4 lg:grid-cols-8">
        <Stat label="Duration" value={formatDuration(s.durationMs)} />
        <Stat label="Spans" value={formatInt(s.spanCount)} testId="session-spans" />
        <Stat label="Model calls" value={formatInt(s.modelCallCount)} testId="session-model-calls" />
        <Stat
          label="Tool calls"
          value={formatInt(s.toolCallCount)}
          testId="session-tool-calls"
          note={s.runtimeToolCallCount ? `${formatInt(s.runtimeToolCallCount)} run by the runtime (discovery), not the model` : undefined}
        />
        <Stat label="Attempts" value={formatInt(s.attemptCount)} testId="session-attempts" />
        <Stat
          label="Failed attempts"
          value={formatInt(s.failedAttemptCount)}
          tone={s.failedAttemptCount ? 'text-red-700' : undefined}
          testId="session-failed-attempts"
        />
        <Stat label="Tokens in / out" value={`${formatInt(s.inputTokens)} / ${formatInt(s.outputTokens)}`} testId="session-tokens" />
        <Stat
          label="Repair tokens"
          value={formatInt(s.repairTokens)}
          tone={s.repairTokens ? 'text-amber-700' : undefined}
          testId="repair-tokens"
        />
      </dl>
      {/* Priced from the stored tokens when the page is read: Settings > Model prices changes it at once. */}
      <p className="mt-2 text-sm text-slate-700">
        Cost <span className="font-semibold tabular-nums text-slate-900" data-testid="session-cost">{formatCost(s.cost)}</span>
        <span className="text-xs text-slate-500"> from the project's model prices (Settings)</span>
      </p>
      {s.traceIds.length ? (
        <p className="mt-3 text-xs text-slate-500">
          Trace{s.traceIds.length > 1 ? 's' : ''}{' '}
          {s.traceIds.map((t) => (
            <span key={t} className="mr-2 font-mono text-slate-600">
              {t}
            </span>
          ))}
        </p>
      ) : null}
    </section>
  );
}
