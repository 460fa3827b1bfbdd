import { redirect } from 'next/navigation';
import { hrefWith, parseProjectParam, type RawSearchParams } from '@/lib/search-params';

export default async function Home({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  redirect(hrefWith('/sessions', { project: parseProjectParam(await searchParams) }));
}
