import type { GuardCheckDto, GuardrailResultDto } from '@/server/queries/session-types';

/** `id@version`, `id`, or null. */
function policyText(r: GuardrailResultDto): string | null {
  if (r.policyId === undefined) return r.policyVersion === undefined ? null : `version ${r.policyVersion}`;
  return r.policyVersion === undefined ? r.policyId : `${r.policyId}@${r.policyVersion}`;
}

function Fact({ label, testId, children }: { label: string; testId: string; children: string }) {
  return (
    <span className="inline-flex min-w-0 gap-1">
      <span className="text-slate-400">{label}</span>
      <span data-testid={testId} className="min-w-0 font-mono text-slate-700 wrap-anywhere">
        {children}
      </span>
    </span>
  );
}

type Shared = { policy: string | null; source: string | null; provider: string | null };

/** The policy, source and provider every result shares (shown once), else null for each. */
function sharedOf(results: GuardrailResultDto[]): Shared {
  const same = <T,>(f: (r: GuardrailResultDto) => T): T | null => {
    const first = results[0] === undefined ? null : f(results[0]);
    return results.every((r) => f(r) === first) ? first : null;
  };
  return { policy: same(policyText), source: same((r) => r.source ?? null), provider: same((r) => r.provider ?? null) };
}

/** One result as the provider reported it: its native value, rule and risk, and its policy, source and provider unless all share them. */
function Result({ r, shared, showReason }: { r: GuardrailResultDto; shared: Shared; showReason: boolean }) {
  const policy = shared.policy === null ? policyText(r) : null;
  const native = r.type !== undefined || r.value !== undefined ? `${r.type ?? 'result'} = ${r.value ?? '—'}` : null;
  const risk = r.riskCategory === undefined && r.riskScore === undefined ? null : [r.riskCategory, r.riskScore].filter((x) => x !== undefined).join(' ');
  return (
    <li data-testid="guardrail-result" className="flex flex-wrap gap-x-3 gap-y-0.5">
      {native ? <Fact label="result" testId="guardrail-native">{native}</Fact> : null}
      {showReason && r.reason ? <Fact label="reason" testId="guardrail-reason">{r.reason}</Fact> : null}
      {r.ruleId ? <Fact label="rule" testId="guardrail-rule">{r.ruleId}</Fact> : null}
      {risk ? <Fact label="risk" testId="guardrail-risk">{risk}</Fact> : null}
      {policy ? <Fact label="policy" testId="guardrail-policy">{policy}</Fact> : null}
      {shared.source === null && r.source ? <Fact label="source" testId="guardrail-source">{r.source}</Fact> : null}
      {shared.provider === null && r.provider ? <Fact label="provider" testId="guardrail-provider">{r.provider}</Fact> : null}
    </li>
  );
}

/**
 * What another instrumentation's guardrail reported, in its own values (the verdict beside it is
 * derived only from an explicit value), and the argument fields a check points at.
 */
export function GuardrailFacts({ check }: { check: GuardCheckDto }) {
  if (check.results.length === 0 && check.failedPointers.length === 0) return null;
  const shared = sharedOf(check.results);
  return (
    <div className="mt-1 space-y-0.5 text-[11px] text-slate-600">
      {shared.policy || shared.source || shared.provider ? (
        <p className="flex flex-wrap gap-x-3 gap-y-0.5">
          {shared.policy ? <Fact label="policy" testId="guardrail-policy">{shared.policy}</Fact> : null}
          {shared.source ? <Fact label="source" testId="guardrail-source">{shared.source}</Fact> : null}
          {shared.provider ? <Fact label="provider" testId="guardrail-provider">{shared.provider}</Fact> : null}
        </p>
      ) : null}
      {check.results.length ? (
        <ul data-testid="guardrail-results" className="space-y-0.5">
          {check.results.map((r, i) => (
            // Results have no id of their own: their order is the provider's.
            // biome-ignore lint/suspicious/noArrayIndexKey: a result list never reorders.
            <Result key={i} r={r} shared={shared} showReason={r.reason !== undefined && r.reason !== check.reason} />
          ))}
        </ul>
      ) : null}
      {check.failedPointers.length ? (
        <p className="flex flex-wrap gap-x-2">
          <span className="text-slate-400">at</span>
          {check.failedPointers.map((p) => (
            <span key={p} data-testid="guard-pointer" className="font-mono text-slate-800 wrap-anywhere">
              {p === '' ? '(whole arguments)' : p}
            </span>
          ))}
        </p>
      ) : null}
    </div>
  );
}
