import type { Metadata } from 'next';
import { connection } from 'next/server';
import type { ReactNode } from 'react';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Guardtrace', template: '%s · Guardtrace' },
  description: 'Replay agent sessions and see where tool-call failures spend tokens.',
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page is rendered per request (they read the database anyway), so each carries the
  // nonce of its Content-Security-Policy (src/proxy.ts), the not-found page included.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">{children}</body>
    </html>
  );
}
