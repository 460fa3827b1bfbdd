'use client';

import { ALERT_COMPARISONS, ALERT_KIND_NAMES, ALERT_KINDS, MAX_WINDOW_MINUTES } from '@guardtrace/db/alert-rules';
import { FAILURE_CLASSES } from '@guardtrace/semconv';
import { useActionState, useState } from 'react';
import type { ActionState } from '@/server/action-guard';
import { createAlertRuleAction, deleteAlertAction, sendTestAlertAction } from './actions';

const INITIAL: ActionState = { ok: true, message: '' };
const INPUT =
  'rounded-md border border-slate-300 px-3 py-1.5 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500';
const BUTTON =
  'rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 disabled:cursor-wait disabled:opacity-60';
const LABEL = 'block text-xs font-medium text-slate-700';

function Message({ state }: { state: ActionState }) {
  return state.message ? (
    <p className={`mt-2 text-sm ${state.ok ? 'text-emerald-700' : 'text-red-700'}`} role="status" aria-live="polite">
      {state.message}
    </p>
  ) : null;
}

/** A new rule: what it measures, its scope, window and threshold, and where it is delivered. */
export function AlertRuleForm({ project }: { project: string }) {
  const [state, action, pending] = useActionState(createAlertRuleAction, INITIAL);
  const [kind, setKind] = useState<string>('failure_count');
  const news = kind === 'new_failure_class' || kind === 'new_failing_tool';
  return (
    <form action={action} data-testid="alert-rule-form">
      <input type="hidden" name="project" value={project} />
      <div className="flex flex-wrap items-end gap-3">
        <div>
          <label htmlFor="alert-name" className={LABEL}>
            Name
          </label>
          <input id="alert-name" name="name" required maxLength={120} placeholder="Search timeouts" className={`${INPUT} mt-1 w-56`} />
        </div>
        <div>
          <label htmlFor="alert-kind" className={LABEL}>
            Metric
          </label>
          <select id="alert-kind" name="kind" value={kind} onChange={(e) => setKind(e.target.value)} className={`${INPUT} mt-1`}>
            {ALERT_KIND_NAMES.map((k) => (
              <option key={k} value={k}>
                {ALERT_KINDS[k].label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="alert-class" className={LABEL}>
            Failure class (optional)
          </label>
          <input id="alert-class" name="failureClass" list="alert-classes" maxLength={200} placeholder="any" className={`${INPUT} mt-1 w-40 font-mono`} />
          <datalist id="alert-classes">
            {FAILURE_CLASSES.map((c) => (
              <option key={c} value={c} />
            ))}
          </datalist>
        </div>
        <div>
          <label htmlFor="alert-tool" className={LABEL}>
            Tool (optional)
          </label>
          <input id="alert-tool" name="toolName" maxLength={200} placeholder="any" className={`${INPUT} mt-1 w-40 font-mono`} />
        </div>
        <div>
          <label htmlFor="alert-window" className={LABEL}>
            Window (minutes)
          </label>
          <input
            id="alert-window"
            name="windowMinutes"
            type="number"
            required
            min={1}
            max={MAX_WINDOW_MINUTES}
            step={1}
            defaultValue={5}
            className={`${INPUT} mt-1 w-24 text-right tabular-nums`}
          />
        </div>
        {news ? null : (
          <>
            <div>
              <label htmlFor="alert-comparison" className={LABEL}>
                Fires when
              </label>
              <select id="alert-comparison" name="comparison" defaultValue="gte" className={`${INPUT} mt-1`}>
                {Object.entries(ALERT_COMPARISONS).map(([k, sym]) => (
                  <option key={k} value={k}>
                    {sym}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <label htmlFor="alert-threshold" className={LABEL}>
                Threshold ({ALERT_KINDS[kind as keyof typeof ALERT_KINDS]?.unit})
              </label>
              <input
                id="alert-threshold"
                name="threshold"
                type="number"
                required
                min={0}
                step="any"
                className={`${INPUT} mt-1 w-28 text-right tabular-nums`}
              />
            </div>
          </>
        )}
        <div>
          <label htmlFor="alert-url" className={LABEL}>
            Webhook URL
          </label>
          <input id="alert-url" name="webhookUrl" type="url" required placeholder="https://hooks.example.com/guardtrace" className={`${INPUT} mt-1 w-80`} />
        </div>
        <div>
          <label htmlFor="alert-format" className={LABEL}>
            Body
          </label>
          <select id="alert-format" name="format" defaultValue="generic" className={`${INPUT} mt-1`}>
            <option value="generic">Generic JSON</option>
            <option value="slack">Slack-compatible</option>
          </select>
        </div>
        <button type="submit" className={BUTTON} disabled={pending}>
          Create rule
        </button>
      </div>
      <Message state={state} />
      {state.key ? (
        <pre
          data-testid="new-alert-secret"
          className="mt-2 overflow-x-auto rounded-md border border-emerald-200 bg-emerald-50 p-3 font-mono text-sm text-emerald-950 select-all"
        >
          {state.key}
        </pre>
      ) : null}
    </form>
  );
}

/** "Send test": one signed delivery now, its answer shown beside the button. */
export function TestAlertButton({ project, rule, name }: { project: string; rule: string; name: string }) {
  const [state, action, pending] = useActionState(sendTestAlertAction, INITIAL);
  return (
    <form action={action} className="inline">
      <input type="hidden" name="project" value={project} />
      <input type="hidden" name="rule" value={rule} />
      <button type="submit" disabled={pending} className="min-h-6 rounded border border-slate-300 px-2 py-1 text-xs text-slate-700 hover:bg-slate-50">
        Send test <span className="sr-only">of {name}</span>
      </button>
      <Message state={state} />
    </form>
  );
}

/** Delete, after asking: the rule's firings and delivery log go with it. */
export function DeleteAlertButton({ project, rule, name }: { project: string; rule: string; name: string }) {
  return (
    <form action={deleteAlertAction} className="inline">
      <input type="hidden" name="project" value={project} />
      <input type="hidden" name="rule" value={rule} />
      <button
        type="submit"
        className="text-xs font-medium text-red-700 hover:underline"
        onClick={(e) => {
          if (!window.confirm(`Delete the alert rule "${name}"? Its firings and delivery log go with it.`)) e.preventDefault();
        }}
      >
        Delete <span className="sr-only">{name}</span>
      </button>
    </form>
  );
}
