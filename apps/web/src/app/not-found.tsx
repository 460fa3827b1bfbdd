import Link from 'next/link';

export default function NotFound() {
  return (
    <main className="mx-auto max-w-xl px-6 py-24 text-center">
      <p className="text-sm font-semibold text-indigo-600">404</p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">Not found</h1>
      <p className="mt-3 text-slate-600">This session or project does not exist, or belongs to another project.</p>
      <Link href="/sessions" className="mt-6 inline-block text-sm font-medium text-indigo-700 hover:underline">
        Back to sessions
      </Link>
    </main>
  );
}
