import Link from 'next/link';
import { hrefWith } from '@/lib/search-params';
import { sdkSnippet } from '@/lib/sdk-snippet';
import { CopyButton } from './copy-button';

/** A project without sessions: where to send traces, with which key, and the code to do it. */
export function EmptyState({ project, collectorUrl }: { project: string; collectorUrl: string }) {
  const endpoint = `${collectorUrl}/v1/traces`;
  const snippet = sdkSnippet(collectorUrl);
  return (
    <section data-testid="sessions-empty" aria-labelledby="empty-title" className="rounded-lg border border-dashed border-slate-300 bg-white px-6 py-8 text-sm text-slate-700">
      <h2 id="empty-title" className="text-base font-semibold text-slate-900">
        No sessions in this project yet
      </h2>
      <ol className="mt-4 list-decimal space-y-3 pl-5">
        <li>
          Agents send OpenTelemetry traces over OTLP/HTTP to{' '}
          <code data-testid="otlp-endpoint" className="break-all rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[13px]">
            {endpoint}
          </code>{' '}
          <CopyButton text={endpoint} label="Copy endpoint" />
        </li>
        <li>
          They authenticate with an API key of this project (<code className="font-mono text-[13px]">Authorization: Bearer gt_…</code>
          ). Keys are made, shown once and revoked in{' '}
          <Link href={hrefWith('/settings', { project })} className="font-medium text-indigo-700 hover:underline" data-testid="settings-link">
            Settings
          </Link>
          .
        </li>
        <li>
          With the SDK (<code className="font-mono text-[13px]">@guardtrace/sdk</code>), pass the endpoint and key as below; other
          OpenTelemetry instrumentations (Vercel AI SDK, OpenLLMetry, …) export to the same endpoint.
          <div className="mt-2 flex justify-end">
            <CopyButton text={snippet} label="Copy snippet" />
          </div>
          <pre data-testid="sdk-snippet" className="mt-2 whitespace-pre-wrap break-all rounded-md bg-slate-900 p-4 font-mono text-xs leading-relaxed text-slate-100">
            {snippet}
          </pre>
        </li>
      </ol>
    </section>
  );
}
