'use client';

import { useState } from 'react';
import { useReplayContext } from './replay-context';

interface StoredSpan {
  name: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  events: { timeUnixNano?: string; name?: string; attributes?: Record<string, unknown> }[];
  links: { traceId: string; spanId: string; attributes?: Record<string, unknown> }[];
}

function KeyValues({ values, testId }: { values: Record<string, unknown> | undefined; testId?: string }) {
  const entries = Object.entries(values ?? {});
  if (!entries.length) return <p className="text-xs text-slate-400">none</p>;
  return (
    <dl data-testid={testId} className="grid grid-cols-[minmax(0,14rem)_minmax(0,1fr)] gap-x-3 gap-y-0.5 font-mono text-xs">
      {entries.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="truncate text-slate-500" title={k}>
            {k}
          </dt>
          <dd className="whitespace-pre-wrap text-slate-800 wrap-anywhere">{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
        </div>
      ))}
    </dl>
  );
}

const h = 'mb-1 mt-3 text-[11px] font-semibold uppercase tracking-wide text-slate-500';

/** A stored span's attributes, resource, events (an exception's type, message and stack) and links, loaded on demand. */
export function SpanDetails({ traceId, spanId }: { traceId: string; spanId: string }) {
  const { basePath, project } = useReplayContext();
  const [span, setSpan] = useState<StoredSpan | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = async () => {
    const q = new URLSearchParams({ project, kind: 'span', trace: traceId, span: spanId, full: '1' });
    const res = await fetch(`${basePath}/payload?${q}`);
    const body = (await res.json()) as { value?: string; error?: string };
    if (!res.ok || body.value === undefined) setError(body.error ?? `HTTP ${res.status}`);
    else setSpan(JSON.parse(body.value) as StoredSpan);
  };
  if (!span) {
    return (
      <div>
        <button
          type="button"
          onClick={load}
          data-testid="span-load"
          className="rounded border border-slate-300 bg-white px-2 py-0.5 text-[11px] font-medium text-slate-700 hover:bg-slate-50"
        >
          Show attributes, resource, events and links
        </button>
        {error ? (
          <span role="alert" className="ml-2 text-xs text-red-700">
            {error}
          </span>
        ) : null}
      </div>
    );
  }
  return (
    <div data-testid="span-details">
      <h4 className={h}>Attributes</h4>
      <KeyValues values={span.attributes} />
      <h4 className={h}>Resource</h4>
      <KeyValues values={span.resource} testId="span-resource" />
      <h4 className={h}>Events</h4>
      {span.events.length ? (
        <ol className="space-y-2">
          {span.events.map((e, n) => ({ e, key: `${n}:${e.name ?? ''}` })).map(({ e, key }) => {
            const a = e.attributes ?? {};
            const stack = a['exception.stacktrace'];
            return (
              <li key={key} data-testid="span-event" className="rounded border border-slate-200 p-2">
                <p className="font-mono text-xs font-medium text-slate-800">{e.name ?? '(unnamed event)'}</p>
                {e.name === 'exception' ? (
                  <p className="font-mono text-xs text-red-800 wrap-anywhere">
                    {String(a['exception.type'] ?? 'Error')}: {String(a['exception.message'] ?? '')}
                  </p>
                ) : (
                  <KeyValues values={a} />
                )}
                {typeof stack === 'string' ? (
                  <pre data-testid="exception-stack" className="mt-1 max-h-60 overflow-auto rounded bg-slate-900 p-2 font-mono text-[11px] text-slate-100">
                    {stack}
                  </pre>
                ) : null}
              </li>
            );
          })}
        </ol>
      ) : (
        <p className="text-xs text-slate-400">none</p>
      )}
      <h4 className={h}>Links</h4>
      {span.links.length ? (
        <ul className="space-y-1">
          {span.links.map((l) => (
            <li key={`${l.traceId}-${l.spanId}`} data-testid="span-link" className="font-mono text-xs text-slate-700 wrap-anywhere">
              trace {l.traceId} span {l.spanId}
              <KeyValues values={l.attributes} />
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-xs text-slate-400">none</p>
      )}
    </div>
  );
}
