import { describe, expect, it } from 'vitest';
import { explorerHref } from '../src/lib/explorer-link.ts';
import { isFiltered, parseSessionQuery, periodOf, SESSION_QUERY_MAX } from '../src/lib/session-query.ts';

describe('parseSessionQuery', () => {
  it('reads the documented form with every key and free text', () => {
    const p = parseSessionQuery('class:invalid_arguments tool:read_file attempts:>2 user:u_17 agent:x status:escalated timeout');
    expect(p.errors).toEqual([]);
    expect(p.filters).toEqual({
      classes: ['invalid_arguments'],
      tools: ['read_file'],
      attempts: [{ op: '>', value: 2 }],
      tokens: [],
      started: [],
      failed: [],
      user: 'u_17',
      agent: 'x',
      status: 'escalated',
    });
    expect(p.text).toBe('timeout');
    expect(p.terms).toEqual(['timeout']);
    expect(isFiltered(p)).toBe(true);
  });

  it('reads decision: as one or more decisions, any of them, and names a wrong one', () => {
    const p = parseSessionQuery('decision:escalate_human,fail_reconcile,abort');
    expect(p.errors).toEqual([]);
    expect(p.filters.decisions).toEqual(['escalate_human', 'fail_reconcile', 'abort']);
    expect(isFiltered(p)).toBe(true);
    const bad = parseSessionQuery('decision:escalate decision:abort,nope');
    expect(bad.filters.decisions).toBeUndefined();
    expect(bad.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^Unknown decision “escalate”: expected one or more of proceed, reject_with_feedback.*separated by commas \(at column 1/),
      expect.stringMatching(/^Unknown decision “nope”.*at column 19/),
    ]);
    expect(parseSessionQuery('decision:abort decision:replan').errors.map((e) => e.message)).toEqual([expect.stringMatching(/^“decision:” is given twice/)]);
  });

  it('reads budget: as any, or one or more budgets that ran out, and names a wrong one', () => {
    expect(parseSessionQuery('budget:any').filters.budgets).toEqual(['any']);
    const p = parseSessionQuery('tool:fetch budget:attempts_per_call,session_retries');
    expect(p.errors).toEqual([]);
    expect(p.filters.budgets).toEqual(['attempts_per_call', 'session_retries']);
    expect(isFiltered(parseSessionQuery('budget:any'))).toBe(true);
    // class_retries stops a call without spending a budget: not one.
    expect(parseSessionQuery('budget:class_retries').errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^Unknown budget “class_retries”: expected any, or one or more of attempts_per_call, session_retries/),
    ]);
    expect(parseSessionQuery('budget:any budget:any').errors.map((e) => e.message)).toEqual([expect.stringMatching(/^“budget:” is given twice/)]);
  });

  it('reads unfixed: as any, or the days or minutes a rejection became known as not fixed, and names what it expects', () => {
    expect(parseSessionQuery('unfixed:any').filters.unfixed).toEqual([]);
    expect(isFiltered(parseSessionQuery('unfixed:any'))).toBe(true);
    const p = parseSessionQuery('class:invalid_arguments unfixed:>=2026-11-30T12:58Z unfixed:<=2026-11-30T13:02Z');
    expect(p.errors).toEqual([]);
    expect(p.filters.unfixed).toEqual([
      { op: '>=', day: '2026-11-30T12:58' },
      { op: '<=', day: '2026-11-30T13:02' },
    ]);
    // Left out: no condition at all (not `any`).
    expect(parseSessionQuery('class:invalid_arguments').filters.unfixed).toBeUndefined();
    const bad = parseSessionQuery('unfixed:yes unfixed:2026-02-30');
    expect(bad.filters.unfixed).toBeUndefined();
    expect(bad.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(
        /^“unfixed:” expects any, or the UTC day \(YYYY-MM-DD\) or minute \(YYYY-MM-DDTHH:MMZ\) a rejection's correction failed, optionally after >, >=, <, <= or = \(e\.g\. unfixed:any, unfixed:>=2026-11-03\) \(at column 1, “unfixed:yes”\)$/,
      ),
      expect.stringMatching(/“unfixed:” expects any.*at column 13, “unfixed:2026-02-30”/),
    ]);
  });

  it('reads repaired: as any, or the days or minutes of a repair turn, and names what it expects', () => {
    expect(parseSessionQuery('repaired:any').filters.repaired).toEqual([]);
    expect(isFiltered(parseSessionQuery('repaired:any'))).toBe(true);
    const p = parseSessionQuery('class:transient repaired:>2026-11-29 repaired:<2026-12-01T00:00Z');
    expect(p.errors).toEqual([]);
    expect(p.filters.repaired).toEqual([
      { op: '>', day: '2026-11-29' },
      { op: '<', day: '2026-12-01T00:00' },
    ]);
    expect(p.filters.unfixed).toBeUndefined();
    expect(parseSessionQuery('repaired:').errors.map((e) => e.message)).toEqual([expect.stringMatching(/^“repaired:” needs a value/)]);
    expect(parseSessionQuery('tool:x repaired:2026-11-30T24:00Z').errors.map((e) => e.message)).toEqual([
      `“repaired:” expects any, or the UTC day (YYYY-MM-DD) or minute (YYYY-MM-DDTHH:MMZ) a model turn repaired a failure, optionally after >, >=, <, <= or = (e.g. repaired:any, repaired:>=2026-11-03) (at column 8, “repaired:2026-11-30T24:00Z”)`,
    ]);
  });

  it('reads failed: (the UTC day of a failed attempt) with every comparison, and names what it expects', () => {
    const p = parseSessionQuery('class:transient failed:>=2026-11-03 failed:<2026-12-01 failed:2026-11-20');
    expect(p.errors).toEqual([]);
    expect(p.filters.failed).toEqual([
      { op: '>=', day: '2026-11-03' },
      { op: '<', day: '2026-12-01' },
      { op: '=', day: '2026-11-20' },
    ]);
    expect(p.filters.started).toEqual([]);
    expect(isFiltered(parseSessionQuery('failed:2026-11-20'))).toBe(true);
    const bad = parseSessionQuery('failed:yesterday failed:2026-02-30');
    expect(bad.filters.failed).toEqual([]);
    expect(bad.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(
        /^“failed:” expects a UTC day as YYYY-MM-DD \(or a UTC minute as YYYY-MM-DDTHH:MMZ\), optionally after >, >=, <, <= or = \(e\.g\. failed:>=2026-11-03\) \(at column 1/,
      ),
      expect.stringMatching(/“failed:” expects a UTC day.*at column 18/),
    ]);
  });

  it('accepts every comparison and a bare number as equality', () => {
    const p = parseSessionQuery('attempts:>=3 attempts:<10 attempts:<=9 attempts:=4 attempts:5');
    expect(p.errors).toEqual([]);
    expect(p.filters.attempts).toEqual([
      { op: '>=', value: 3 },
      { op: '<', value: 10 },
      { op: '<=', value: 9 },
      { op: '=', value: 4 },
      { op: '=', value: 5 },
    ]);
  });

  it('reads tokens: (thousands separators allowed) and started: (a UTC day) with every comparison', () => {
    const p = parseSessionQuery('tokens:>=10000 tokens:<20,000 tokens:5_000_000_000 started:>=2026-11-03 started:<=2026-12-02 started:2026-02-28');
    expect(p.errors).toEqual([]);
    expect(p.filters.tokens).toEqual([
      { op: '>=', value: 10_000 },
      { op: '<', value: 20_000 },
      { op: '=', value: 5_000_000_000 },
    ]);
    expect(p.filters.started).toEqual([
      { op: '>=', day: '2026-11-03' },
      { op: '<=', day: '2026-12-02' },
      { op: '=', day: '2026-02-28' },
    ]);
    expect(isFiltered(parseSessionQuery('tokens:>0'))).toBe(true);
    expect(isFiltered(parseSessionQuery('started:2026-12-02'))).toBe(true);
    const bad = (q: string) => parseSessionQuery(q).errors.map((e) => e.message);
    expect(bad('tokens:lots')[0]).toMatch(/“tokens:” expects a whole number of tokens, optionally after >, >=, <, <= or = \(e\.g\. tokens:>=10000\) \(at column 1, “tokens:lots”\)/);
    expect(bad('started:2026-02-30')[0]).toMatch(/“started:” expects a UTC day as YYYY-MM-DD/);
    expect(bad('started:>yesterday')[0]).toMatch(/“started:” expects a UTC day as YYYY-MM-DD/);
    expect(bad('started:2026-12-02T25:00')[0]).toMatch(/“started:” expects a UTC day/);
    expect(bad('started:2026-12-02T10:60Z')[0]).toMatch(/“started:” expects a UTC day/);
    expect(bad('started:2026-12-02T10')[0]).toMatch(/“started:” expects a UTC day/);
  });

  it('reads a UTC minute in failed: and started: (an alert’s window), with or without its Z', () => {
    const p = parseSessionQuery('failed:>=2026-11-30T12:18Z failed:<=2026-11-30T12:22 started:2026-11-30T09:05Z');
    expect(p.errors).toEqual([]);
    expect(p.filters.failed).toEqual([
      { op: '>=', day: '2026-11-30T12:18' },
      { op: '<=', day: '2026-11-30T12:22' },
    ]);
    expect(p.filters.started).toEqual([{ op: '=', day: '2026-11-30T09:05' }]);
    // A minute is [its first second, the next minute's); a day [its midnight, the next).
    expect(periodOf('2026-11-30T12:22')).toEqual({ start: new Date('2026-11-30T12:22:00Z'), next: new Date('2026-11-30T12:23:00Z') });
    expect(periodOf('2026-11-30')).toEqual({ start: new Date('2026-11-30T00:00:00Z'), next: new Date('2026-12-01T00:00:00Z') });
  });

  it('keeps quoted values and quoted free text whole, colons included', () => {
    const p = parseSessionQuery('tool:"read file" "error: ENOENT"   plain  Class:transient');
    expect(p.errors).toEqual([]);
    expect(p.filters.tools).toEqual(['read file']);
    expect(p.filters.classes).toEqual(['transient']);
    expect(p.terms).toEqual(['error: ENOENT', 'plain']);
    expect(p.text).toBe('error: ENOENT plain');
  });

  it('reads back the tool names the links write: quotes and backslashes escaped inside the quotes', () => {
    for (const tool of ['say "hi": now', 'C:\\tools\\run', 'a\\"b', 'plain']) {
      // As the explorer links (apps/web/src/lib/explorer-link.ts) and the alerts' links write them.
      const href = explorerHref('p1', { tool });
      const q = new URL(href, 'https://gt.example.com').searchParams.get('q') as string;
      const p = parseSessionQuery(q);
      expect(p.errors).toEqual([]);
      expect(p.filters.tools).toEqual([tool]);
    }
    // A backslash before anything else stays a backslash.
    expect(parseSessionQuery('tool:"C:\\x"').filters.tools).toEqual(['C:\\x']);
  });

  it('repeated class and tool filters all apply, once each', () => {
    const p = parseSessionQuery('class:transient tool:a class:fatal tool:b class:transient');
    expect(p.filters.classes).toEqual(['transient', 'fatal']);
    expect(p.filters.tools).toEqual(['a', 'b']);
  });

  it('an empty or blank query filters nothing', () => {
    for (const q of [undefined, null, '', '   ']) {
      const p = parseSessionQuery(q);
      expect(p).toEqual({ filters: { classes: [], tools: [], attempts: [], tokens: [], started: [], failed: [] }, text: '', terms: [], errors: [] });
      expect(isFiltered(p)).toBe(false);
    }
  });

  it('reads sampling: (kept by default; pending and all narrow or widen the list)', () => {
    expect(parseSessionQuery('sampling:pending').filters.sampling).toBe('pending');
    expect(isFiltered(parseSessionQuery('sampling:pending'))).toBe(true);
    expect(isFiltered(parseSessionQuery('sampling:all'))).toBe(true);
    // the default spelled out narrows nothing: an empty project still gets its empty state
    expect(isFiltered(parseSessionQuery('sampling:kept'))).toBe(false);
    expect(parseSessionQuery('').filters.sampling).toBeUndefined();
    const bad = (q: string) => parseSessionQuery(q).errors.map((e) => e.message);
    expect(bad('sampling:dropped')[0]).toMatch(/Unknown sampling decision “dropped”: expected one of kept, pending, all \(at column 1/);
    expect(bad('sampling:kept sampling:pending')[0]).toMatch(/“sampling:” is given twice/);
  });

  it('reads has:errors, and names what else has: takes', () => {
    const p = parseSessionQuery('has:errors class:tool_error has:errors');
    expect(p.filters.has).toEqual(['errors']);
    expect(p.filters.classes).toEqual(['tool_error']);
    expect(isFiltered(parseSessionQuery('has:errors'))).toBe(true);
    expect(parseSessionQuery('has:bugs').errors[0]?.message).toMatch(/Unknown “has:” value “bugs”: expected one of errors \(at column 1/);
  });

  it('names an unknown key with its position and the keys it expects', () => {
    const p = parseSessionQuery('tool:x colour:red');
    expect(p.filters.tools).toEqual(['x']);
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0]).toMatchObject({ token: 'colour:red', at: 7 });
    expect(p.errors[0]?.message).toContain('Unknown filter “colour”');
    expect(p.errors[0]?.message).toContain('column 8');
    expect(p.errors[0]?.message).toContain('class:, tool:, attempts:, tokens:, started:, failed:, user:, agent:, status:, sampling:, has:');
  });

  it('rejects bad values with what was expected', () => {
    const bad = (q: string) => parseSessionQuery(q).errors.map((e) => e.message);
    expect(bad('class:nope')[0]).toMatch(/Unknown failure class “nope”: expected one of .*invalid_arguments/);
    expect(bad('status:done')[0]).toMatch(/Unknown status “done”: expected one of success, failed, escalated/);
    expect(bad('attempts:many')[0]).toMatch(/“attempts:” expects a whole number/);
    expect(bad('attempts:>-1')[0]).toMatch(/whole number/);
    expect(bad('attempts:2.5')[0]).toMatch(/whole number/);
    expect(bad('user:')[0]).toMatch(/“user:” needs a value/);
    expect(bad('user:a user:b')[0]).toMatch(/“user:” is given twice/);
    expect(bad('status:failed status:success')[0]).toMatch(/“status:” is given twice/);
    expect(bad('tool:"read')[0]).toMatch(/Unclosed quote at column 6/);
    expect(bad(`tool:${'x'.repeat(257)}`)[0]).toMatch(/longer than 256 characters/);
    expect(bad('x'.repeat(SESSION_QUERY_MAX + 1))[0]).toMatch(/at most 500 are accepted/);
  });

  it('leaves bad tokens out of the filters and keeps the good ones', () => {
    const p = parseSessionQuery('class:nope tool:ok attempts:x');
    expect(p.filters).toEqual({ classes: [], tools: ['ok'], attempts: [], tokens: [], started: [], failed: [] });
    expect(p.errors.map((e) => e.at)).toEqual([0, 19]);
  });
});
