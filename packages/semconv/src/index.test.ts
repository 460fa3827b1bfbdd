import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as semconv from './index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const keys = Object.entries(semconv).filter(([name]) => name.startsWith('ATTR_')) as [string, string][];

describe('semantic conventions', () => {
  it('gives every attribute constant a distinct key', () => {
    const values = keys.map(([, v]) => v);
    expect(new Set(values).size).toBe(values.length);
    expect(keys.length).toBeGreaterThan(30);
  });

  it('documents every attribute key and enum value in docs/semantic-conventions.md', () => {
    const doc = readFileSync(path.join(here, '../../../docs/semantic-conventions.md'), 'utf8');
    const missing = keys.filter(([, v]) => !doc.includes(`\`${v}\``)).map(([, v]) => v);
    for (const v of [...semconv.FAILURE_CLASSES, ...semconv.DECISIONS, ...semconv.GUARD_STAGES]) {
      if (!doc.includes(`\`${v}\``)) missing.push(v);
    }
    expect(missing).toEqual([]);
  });

  it('recognises failure classes and decisions', () => {
    expect(semconv.isFailureClass('transient')).toBe(true);
    expect(semconv.isFailureClass('flaky')).toBe(false);
    expect(semconv.isDecision('fail_reconcile')).toBe(true);
    expect(semconv.isDecision(3)).toBe(false);
  });
});
