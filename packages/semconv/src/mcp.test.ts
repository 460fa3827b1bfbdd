import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as main from './index.ts';
import * as mcp from './mcp.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const keys = Object.entries(mcp).filter(([name]) => name.startsWith('ATTR_')) as [string, string][];

describe('MCP semantic conventions (@guardtrace/semconv/mcp)', () => {
  it('gives every key a name of its own, distinct from the main entry', () => {
    const mainKeys = new Set<unknown>(Object.entries(main).filter(([n]) => n.startsWith('ATTR_')).map(([, v]) => v));
    expect(keys.length).toBe(6);
    for (const [name, key] of keys) {
      expect(mainKeys.has(key), key).toBe(false);
      expect(name in main, name).toBe(false);
    }
  });

  it('documents every key and value in docs/semantic-conventions.md', () => {
    const doc = readFileSync(path.join(here, '../../../docs/semantic-conventions.md'), 'utf8');
    const values = [...keys.map(([, v]) => v), ...mcp.NETWORK_TRANSPORTS];
    expect(values.filter((v) => !doc.includes(`\`${v}\``))).toEqual([]);
  });
});
