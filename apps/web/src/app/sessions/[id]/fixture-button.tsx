'use client';

import { useState } from 'react';

export interface FixtureButtonProps {
  /** Makes the text to copy (the call's fixture JSON and its vitest file, lib/fixture.ts `fixtureText`): on click, not on every step. */
  text: () => string;
  /** Why the copied test cannot replay the call as recorded (lib/fixture.ts `fixtureCaveat`), said once it is copied. */
  caveat?: string | null;
}

/** "Copy as test fixture": puts the fixture on the clipboard and says so (or why not). */
export function FixtureButton({ text, caveat }: FixtureButtonProps) {
  const [status, setStatus] = useState<'idle' | 'copied' | 'failed'>('idle');
  const [made, setMade] = useState('');
  const copy = async () => {
    const value = text();
    setMade(value);
    try {
      await navigator.clipboard.writeText(value);
      setStatus('copied');
    } catch {
      setStatus('failed');
    }
  };
  return (
    <span className="inline-flex items-center gap-2">
      <button
        type="button"
        onClick={copy}
        data-testid="copy-fixture"
        className="rounded border border-slate-300 bg-white px-2 py-0.5 text-xs font-medium text-slate-800 hover:bg-slate-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
      >
        Copy as test fixture
      </button>
      <span role="status" aria-live="polite" className="text-xs text-slate-700">
        {status === 'copied' ? 'Copied: fixture JSON and a vitest file' : status === 'failed' ? 'The clipboard refused: select the text below instead' : ''}
        {status !== 'idle' && caveat ? <span data-testid="fixture-caveat"> {caveat}</span> : null}
      </span>
      {status === 'failed' ? (
        <textarea readOnly aria-label="Test fixture" value={made} className="mt-1 h-40 w-full font-mono text-xs" />
      ) : null}
    </span>
  );
}
