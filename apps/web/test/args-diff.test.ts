import { describe, expect, it } from 'vitest';
import { diffArguments } from '../src/lib/args-diff.ts';

describe('diffArguments', () => {
  it('names a renamed field as removed and added', () => {
    expect(diffArguments('{"file_path":"a.ts"}', '{"path":"a.ts"}')).toEqual({ added: ['path'], removed: ['file_path'], changed: [] });
  });

  it('compares nested fields by dotted path', () => {
    expect(diffArguments('{"range":{"start":1,"end":900}}', '{"range":{"start":1,"end":90}}')).toEqual({
      added: [],
      removed: [],
      changed: ['range.end'],
    });
  });

  it('is null when nothing changed or the text is not JSON', () => {
    expect(diffArguments('{"a":1,"b":[1,2]}', '{"b":[1,2],"a":1}')).toBeNull();
    expect(diffArguments('not json', '{"a":1}')).toBeNull();
    expect(diffArguments(null, '{"a":1}')).toBeNull();
  });
});
