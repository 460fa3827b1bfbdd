import { describe, expect, it } from 'vitest';
import { optionalPeer } from './optional-peer.ts';

describe('optionalPeer', () => {
  it('loads an installed peer', () => {
    expect(typeof optionalPeer<{ glob: unknown }>('tinyglobby', '^0.2.17', 'guards/files').glob).toBe('function');
  });

  it('names the subpath and the install command when the peer is missing', () => {
    expect(() => optionalPeer('gt-not-an-installed-package', '^1.2.0', 'guards/sql')).toThrow(
      '@guardtrace/sdk/guards/sql needs gt-not-an-installed-package, an optional peer dependency that is not installed: run `npm install gt-not-an-installed-package@^1.2.0`',
    );
  });
});
