import { describe, expect, it } from 'vitest';
import { CollectorError } from './errors.ts';
import { type Held, InFlightMemory, inFlightBounds } from './in-flight.ts';

const held = (project: string, key: string): Held => ({ reserved: 0, used: 0, project, key });
const status = (f: () => void) => {
  try {
    f();
    return 200;
  } catch (err) {
    if (!(err instanceof CollectorError)) throw err;
    return err.status;
  }
};

describe('InFlightMemory', () => {
  it('derives a project and a key bound of half the whole one when they are not set, and caps set ones at it', () => {
    expect(inFlightBounds({ maxInFlightBytes: 1000, maxInFlightBytesPerProject: 0, maxInFlightBytesPerKey: 0 })).toEqual({ total: 1000, perProject: 500, perKey: 500 });
    expect(inFlightBounds({ maxInFlightBytes: 1000, maxInFlightBytesPerProject: 2000, maxInFlightBytesPerKey: 100 })).toEqual({ total: 1000, perProject: 1000, perKey: 100 });
    // A key's bound, unset, is its project's as set (a project sending with one key gets its whole share).
    expect(inFlightBounds({ maxInFlightBytes: 1000, maxInFlightBytesPerProject: 750, maxInFlightBytesPerKey: 0 })).toEqual({ total: 1000, perProject: 750, perKey: 750 });
  });

  it('checks what a request declares without setting it aside', () => {
    const m = new InFlightMemory({ total: 1000, perProject: 1000, perKey: 1000 }, 2, () => {});
    const a = held('p', 'k');
    m.check(a, 900);
    expect(m.total).toBe(0);
    expect(status(() => m.check(a, 1001))).toBe(413);
    m.use(a, 600);
    // 600 held: 500 more does not fit now, but would alone.
    expect(status(() => m.check(held('q', 'j'), 500))).toBe(503);
  });

  it("refuses a project's or a key's request over their bound only while others of it hold memory", () => {
    const m = new InFlightMemory({ total: 1000, perProject: 400, perKey: 200 }, 2, () => {});
    const a1 = held('p', 'k1');
    // Alone, a request may take more than its project's and key's bounds.
    m.expect(a1, 700);
    expect(m.total).toBe(700);
    // Another of the same key, or of the same project: refused.
    expect(status(() => m.check(held('p', 'k1'), 10))).toBe(503);
    expect(status(() => m.check(held('p', 'k2'), 10))).toBe(503);
    // Another project: served.
    const b = held('q', 'j');
    expect(status(() => m.expect(b, 250))).toBe(200);
    m.release(a1);
    expect(m.total).toBe(250);
    // Within its key's bound (and an eighth over it, as a request's counted use): served.
    const a2 = held('p', 'k1');
    const a3 = held('p', 'k1');
    m.expect(a2, 150);
    expect(status(() => m.use(a3, 70))).toBe(200);
    expect(status(() => m.use(a3, 10))).toBe(503);
    m.release(a2);
    m.release(a3);
    m.release(b);
    expect(m.total).toBe(0);
  });

  it('counts nothing of what it refuses: however many requests are refused, a project stays within its bound and slack', () => {
    const m = new InFlightMemory({ total: 1000, perProject: 400, perKey: 400 }, 2, () => {});
    const a1 = held('p', 'k');
    const a2 = held('p', 'k');
    m.use(a1, 300);
    // 450: the project's bound and its eighth.
    m.use(a2, 150);
    const refused = Array.from({ length: 10 }, () => held('p', 'k'));
    for (const r of refused) {
      expect(status(() => m.use(r, 10))).toBe(503);
      expect(r).toMatchObject({ reserved: 0, used: 0 });
    }
    expect(status(() => m.use(a2, 1))).toBe(503);
    expect(a2).toMatchObject({ reserved: 150, used: 150 });
    expect(status(() => m.expect(refused[0] as Held, 100))).toBe(503);
    expect(status(() => m.expect(held('q', 'j'), 1001))).toBe(413);
    expect(m.total).toBe(450);
    // So another project still gets the rest of the collector.
    const b = held('q', 'j');
    expect(status(() => m.expect(b, 550))).toBe(200);
    for (const h of [a1, a2, b, ...refused]) m.release(h);
    expect(m.total).toBe(0);
  });
});
