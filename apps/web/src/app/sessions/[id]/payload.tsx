'use client';

import { useState } from 'react';
import { prettyJson } from '@/lib/format';
import type { PreviewDto } from '@/server/queries/session-types';
import { useReplayContext } from './replay-context';

export type PayloadKind = 'arguments' | 'feedback' | 'result' | 'input' | 'output' | 'span';

interface Loaded {
  value: string;
  chars: number;
  truncated: boolean;
}

function payloadUrl(base: string, project: string, kind: PayloadKind, traceId: string, spanId: string, full: boolean) {
  const q = new URLSearchParams({ project, kind, trace: traceId, span: spanId });
  if (full) q.set('full', '1');
  return `${base}/payload?${q}`;
}

/**
 * A payload value: the preview from the page at once; the server-truncated value on "Expand",
 * the whole value on "Full value"; "Copy" copies the whole value (loading it first if needed).
 */
export function Payload({
  label,
  kind,
  traceId,
  spanId,
  preview,
  tone = 'dark',
  json = true,
  testId,
}: {
  label: string;
  kind: PayloadKind;
  traceId: string;
  spanId: string;
  /** Null for values the page has no preview of (span details): "Expand" loads them. */
  preview: PreviewDto | null;
  tone?: 'dark' | 'amber';
  json?: boolean;
  testId?: string;
}) {
  const { basePath, project } = useReplayContext();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [state, setState] = useState<'idle' | 'loading' | 'copied' | 'error'>('idle');
  const [error, setError] = useState<string | null>(null);

  const complete = preview !== null && preview.text.length >= preview.chars;
  const load = async (full: boolean): Promise<Loaded | null> => {
    setState('loading');
    try {
      const res = await fetch(payloadUrl(basePath, project, kind, traceId, spanId, full));
      const body = (await res.json()) as Loaded & { error?: string };
      if (!res.ok) throw new Error(body.error ?? `HTTP ${res.status}`);
      setLoaded(body);
      setState('idle');
      return body;
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setState('error');
      return null;
    }
  };
  const copy = async () => {
    const whole = complete && preview ? preview.text : loaded && !loaded.truncated ? loaded.value : (await load(true))?.value;
    if (whole === undefined) return;
    await navigator.clipboard.writeText(whole);
    setState('copied');
  };

  const text = loaded?.value ?? preview?.text ?? '';
  const total = loaded?.chars ?? preview?.chars ?? 0;
  const shown = text.length;
  const more = total > shown;
  const box =
    tone === 'amber'
      ? 'border border-amber-200 bg-amber-50 text-amber-950'
      : 'bg-slate-900 text-slate-100';
  const btn = 'rounded border border-slate-300 bg-white px-2 py-0.5 text-[11px] font-medium text-slate-700 hover:bg-slate-50';
  return (
    <div data-testid={testId ?? `payload-${kind}`} data-chars={total} data-shown={shown}>
      <div className="mb-1 flex flex-wrap items-center gap-2">
        <h4 className={`text-[11px] font-semibold uppercase tracking-wide ${tone === 'amber' ? 'text-amber-700' : 'text-slate-500'}`}>
          {label}
        </h4>
        {total ? <span className="text-[11px] tabular-nums text-slate-400">{total.toLocaleString('en-US')} chars</span> : null}
        {(more || (!preview && !loaded)) && !loaded?.truncated ? (
          <button type="button" className={btn} onClick={() => load(false)} data-testid="payload-expand">
            Expand
          </button>
        ) : null}
        {loaded?.truncated ? (
          <button type="button" className={btn} onClick={() => load(true)} data-testid="payload-full">
            Full value
          </button>
        ) : null}
        <button type="button" className={btn} onClick={copy} data-testid="payload-copy">
          {state === 'copied' ? 'Copied' : 'Copy'}
        </button>
        {state === 'loading' ? <span className="text-[11px] text-slate-400">loading…</span> : null}
        {state === 'error' ? (
          <span role="alert" className="text-[11px] text-red-700">
            {error}
          </span>
        ) : null}
      </div>
      {text ? (
        <pre
          data-testid={kind === 'feedback' ? 'feedback' : undefined}
          className={`max-h-72 overflow-auto whitespace-pre-wrap rounded p-2.5 font-mono text-xs leading-relaxed wrap-anywhere ${box}`}
        >
          {json && !more ? prettyJson(text) : text}
          {more ? <span className="text-slate-400"> … ({(total - shown).toLocaleString('en-US')} more chars)</span> : null}
        </pre>
      ) : null}
    </div>
  );
}
