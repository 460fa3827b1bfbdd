'use client';

import { useEffect, useRef } from 'react';

const KEYS: [string, string][] = [
  ['j / k', 'next / previous step'],
  ['h / l', 'previous / next attempt of the call'],
  ['e / E', 'next / previous failure'],
  ['/', 'search the steps (Enter: next match, Shift+Enter: previous)'],
  ['n / N', 'next / previous session with the selected call’s failure'],
  ['y', 'copy a link to this step'],
  ['?', 'this help'],
  ['Esc', 'close'],
];

export function HelpDialog({ onClose }: { onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => close.current?.focus(), []);
  return (
    <div className="fixed inset-0 z-20 grid place-items-center bg-slate-900/40">
      <div
        role="dialog"
        aria-modal="true"
        aria-labelledby="replay-help-title"
        data-testid="help"
        className="w-full max-w-md rounded-lg bg-white p-5 shadow-xl"
      >
        <h2 id="replay-help-title" className="text-base font-semibold text-slate-900">
          Keyboard
        </h2>
        <dl className="mt-3 grid grid-cols-[6rem_1fr] gap-y-1 text-sm">
          {KEYS.map(([k, what]) => (
            <div key={k} className="contents">
              <dt>
                <kbd className="rounded border border-slate-300 bg-slate-50 px-1.5 font-mono text-xs">{k}</kbd>
              </dt>
              <dd className="text-slate-700">{what}</dd>
            </div>
          ))}
        </dl>
        <p className="mt-3 text-xs text-slate-500">Keys are ignored while you type in a field. Clicks add a history entry; keys replace it.</p>
        <button ref={close} type="button" onClick={onClose} className="mt-4 rounded-md bg-slate-800 px-3 py-1.5 text-sm text-white">
          Close
        </button>
      </div>
    </div>
  );
}
