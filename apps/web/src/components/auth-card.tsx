import type { ReactNode } from 'react';

/** The frame of the signed-out pages: sign-in, sign-up, invitations. */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="mx-auto mt-16 max-w-sm px-4">
      <div className="mb-6 flex items-center gap-2">
        <span className="grid size-8 place-items-center rounded-md bg-indigo-500 text-sm font-bold text-white">G</span>
        <span className="font-semibold tracking-tight">Guardtrace</span>
      </div>
      <section className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <h1 className="mb-4 text-lg font-semibold">{title}</h1>
        {children}
      </section>
    </main>
  );
}
