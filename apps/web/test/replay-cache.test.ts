import { describe, expect, it } from 'vitest';
import { ReplayCache } from '../src/server/replay-cache.ts';

const counting = () => {
  let builds = 0;
  const build = (body: string | null) => async () => {
    builds++;
    return body;
  };
  return { build, builds: () => builds };
};

describe('the replay cache', () => {
  it('sends the answer built for a version again, and builds anew for a new version', async () => {
    const cache = new ReplayCache(1000);
    const c = counting();
    expect(await cache.get('s1', 'v1', c.build('one'))).toBe('one');
    expect(await cache.get('s1', 'v1', c.build('other'))).toBe('one');
    expect(c.builds()).toBe(1);
    expect(await cache.get('s1', 'v2', c.build('two'))).toBe('two');
    expect(c.builds()).toBe(2);
    // The old version's answer is gone with it.
    expect(await cache.get('s1', 'v1', c.build('one again'))).toBe('one again');
    expect(cache.bytes).toBe('one again'.length * 2);
  });

  it('shares one build between requests for the same version that arrive while it runs', async () => {
    const cache = new ReplayCache(1000);
    let release: (v: string) => void = () => undefined;
    let builds = 0;
    const build = () => {
      builds++;
      return new Promise<string>((r) => {
        release = r;
      });
    };
    const a = cache.get('s', 'v', build);
    const b = cache.get('s', 'v', build);
    release('body');
    expect(await Promise.all([a, b])).toEqual(['body', 'body']);
    expect(builds).toBe(1);
  });

  it('keeps at most its budget, dropping the least recently used, and keeps nothing for a gone session', async () => {
    const cache = new ReplayCache(100);
    const c = counting();
    await cache.get('a', 'v', c.build('x'.repeat(20)));
    await cache.get('b', 'v', c.build('y'.repeat(20)));
    await cache.get('a', 'v', c.build('unused'));
    await cache.get('c', 'v', c.build('z'.repeat(20)));
    expect(cache.bytes).toBe(80);
    expect(c.builds()).toBe(3);
    // b was the least recently used: dropped for c, built again (which drops a, now the least recently used); c stays.
    expect(await cache.get('b', 'v', c.build('y'.repeat(20)))).toBe('y'.repeat(20));
    expect(await cache.get('c', 'v', c.build('rebuilt'))).toBe('z'.repeat(20));
    expect(c.builds()).toBe(4);
    expect(await cache.get('a', 'v', c.build('a again'))).toBe('a again');
    // Larger than the whole budget: sent, not kept.
    expect(await cache.get('big', 'v', c.build('w'.repeat(60)))).toBe('w'.repeat(60));
    expect(cache.bytes).toBeLessThanOrEqual(100);
    expect(await cache.get('gone', 'v', c.build(null))).toBeNull();
    expect(await cache.get('gone', 'v', c.build('back'))).toBe('back');
  });
});
