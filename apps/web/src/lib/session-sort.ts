import { first, type RawSearchParams } from './search-params';

/** The explorer's sortable columns, as they appear in `?sort=`. */
export const SESSION_SORTS = [
  'session',
  'agent',
  'user',
  'started',
  'duration',
  'tool_calls',
  'attempts',
  'retry_rate',
  'tokens',
  'status',
] as const;
export type SessionSort = (typeof SESSION_SORTS)[number];
export type SortDirection = 'asc' | 'desc';

/** A first click sorts names A→Z and amounts largest first. */
export function defaultDirection(sort: SessionSort): SortDirection {
  return sort === 'session' || sort === 'agent' || sort === 'user' || sort === 'status' ? 'asc' : 'desc';
}

export interface SortParams {
  sort: SessionSort;
  dir: SortDirection;
}

/** `?sort=&dir=`; newest first when missing or unknown. */
export function parseSort(sp: RawSearchParams): SortParams {
  const s = first(sp.sort);
  const sort = (SESSION_SORTS as readonly string[]).includes(s ?? '') ? (s as SessionSort) : 'started';
  const d = first(sp.dir);
  return { sort, dir: d === 'asc' || d === 'desc' ? d : defaultDirection(sort) };
}
