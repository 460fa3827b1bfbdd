import { expect, it } from 'vitest';
import { parseSort } from '../src/lib/session-sort.ts';

it('reads ?sort= and ?dir=, newest first when missing or unknown, names A→Z and amounts largest first', () => {
  expect(parseSort({})).toEqual({ sort: 'started', dir: 'desc' });
  expect(parseSort({ sort: 'bogus', dir: 'sideways' })).toEqual({ sort: 'started', dir: 'desc' });
  expect(parseSort({ sort: 'tokens' })).toEqual({ sort: 'tokens', dir: 'desc' });
  expect(parseSort({ sort: 'agent' })).toEqual({ sort: 'agent', dir: 'asc' });
  expect(parseSort({ sort: 'retry_rate', dir: 'asc' })).toEqual({ sort: 'retry_rate', dir: 'asc' });
  expect(parseSort({ sort: ['user', 'tokens'], dir: 'desc' })).toEqual({ sort: 'user', dir: 'desc' });
});
