import { describe, expect, it } from 'vitest';
import {
  decodeParam,
  hrefWith,
  parsePositiveInt,
  parseProjectParam,
} from '../src/lib/search-params.ts';

describe('search params', () => {
  it('accepts only a well-formed project uuid, so a query never sees garbage', () => {
    expect(parseProjectParam({ project: 'F2B8AE31-4E91-4AA2-90CA-C7F7E38CF155' })).toBe('f2b8ae31-4e91-4aa2-90ca-c7f7e38cf155');
    expect(parseProjectParam({ project: "x' OR 1=1" })).toBeUndefined();
    expect(parseProjectParam({ project: ['f2b8ae31-4e91-4aa2-90ca-c7f7e38cf155', 'other'] })).toBe('f2b8ae31-4e91-4aa2-90ca-c7f7e38cf155');
  });

  it('ignores malformed numbers', () => {
    expect(parsePositiveInt({ page: '3' }, 'page', 1)).toBe(3);
    for (const bad of ['0', '-2', '1.5', 'abc', '']) expect(parsePositiveInt({ page: bad }, 'page', 1)).toBe(1);
  });

  it('builds links that keep the view and drop empty parameters', () => {
    expect(hrefWith('/sessions', { project: 'p', outcome: 'failed' }, { page: 2 })).toBe('/sessions?project=p&outcome=failed&page=2');
    expect(hrefWith('/sessions', { project: 'p', outcome: 'failed' }, { outcome: undefined })).toBe('/sessions?project=p');
    expect(hrefWith('/sessions', {})).toBe('/sessions');
  });

  it('decodes route params and keeps malformed ones as typed', () => {
    expect(decodeParam('conv%20a%2Fb')).toBe('conv a/b');
    expect(decodeParam('%E0%A4%A')).toBe('%E0%A4%A');
  });
});
