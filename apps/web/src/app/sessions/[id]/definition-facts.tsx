import type { ToolDefinitionSummary } from '@guardtrace/semconv';

/**
 * The tool definition a call was decided under: its hash, and on demand the readable summary the
 * collector kept for it (schema, guards with their options, flags, policy): what a guard change
 * would be compared against.
 */
export function DefinitionFacts({ hash, summary, loading }: { hash: string; summary: ToolDefinitionSummary | null; loading: boolean }) {
  // What checks a call: the schema (kept apart in the summary) and the guards, by name.
  const guards = summary && Array.isArray(summary.guards) ? summary.guards.map((g) => g?.name).filter((n): n is string => typeof n === 'string') : [];
  const checks = summary && summary.schema != null ? ['schema', ...guards] : guards;
  const note = loading ? 'loading…' : summary ? (checks.length ? `checks: ${checks.join(', ')}` : 'no checks') : 'its summary was not kept';
  return (
    <details data-testid="tool-definition" className="px-4 pt-2 text-xs text-slate-600">
      <summary className="cursor-pointer select-none">
        Definition <code className="font-mono text-slate-800">{hash}</code> <span className="text-slate-500">· {note}</span>
      </summary>
      {summary ? (
        <pre data-testid="tool-definition-summary" className="mt-1 max-h-64 overflow-auto rounded bg-slate-50 p-2 font-mono text-[11px] text-slate-800">
          {JSON.stringify(summary, null, 2)}
        </pre>
      ) : null}
    </details>
  );
}
