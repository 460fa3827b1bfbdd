import { REPLAY_RUN_FORMAT, type ReplayDecision, type ReplayResult, type ReplayRunReport } from '@guardtrace/semconv';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { junitReport, xmlEscape } from './junit.ts';
import { markdownReport, mdEscape } from './markdown.ts';
import { progressBar, terminalSummary } from './terminal.ts';

const NASTY = `read <a & "b"> 'c' | x\`y\` *z* [l](u) \u0001 \uD800 end`;

const allowed: ReplayDecision = { allowed: true, decision: null, failureClass: null, feedback: null, checks: [] };
const rejected = (feedback: string, failureClass = 'guard_violation'): ReplayDecision => ({
  allowed: false,
  decision: 'retry',
  failureClass,
  feedback,
  checks: [{ guard: 'insideWorkspace', stage: 'logical', verdict: 'fail', reason: feedback, failureClass, pointers: ['/path'] }],
});

function result(over: Partial<ReplayResult> & Pick<ReplayResult, 'change'>): ReplayResult {
  return {
    itemId: 'trace1:span1',
    attempt: 1,
    tool: 'read_file',
    sessionId: 'sess_1',
    stepPath: '/sessions/sess_1?project=p1&call=span1',
    arguments: { path: 'docs/a.md' },
    recorded: allowed,
    now: rejected('path "docs/a.md" is outside the allowed folders: src'),
    definition: { recordedHash: 'aaaaaaaaaaaaaaaa', currentHash: 'bbbbbbbbbbbbbbbb', changes: ['guard insideWorkspace: option roots changed ["src","docs"] → ["src"]'] },
    ...over,
  };
}

function report(results: ReplayResult[], failOn: ReplayRunReport['options']['failOn'] = ['newly_rejected']): ReplayRunReport {
  const summary = { calls: 10, attempts: 12, unchanged: 12 - results.length, newly_rejected: 0, newly_allowed: 0, class_changed: 0, feedback_changed: 0, not_replayed: 0 };
  for (const r of results) summary[r.change]++;
  return {
    format: REPLAY_RUN_FORMAT,
    datasetId: 'ds_1',
    label: 'guard change',
    startedAt: '2026-12-06T01:00:00.000Z',
    finishedAt: '2026-12-06T01:00:02.500Z',
    options: { execute: 'none', failOn },
    summary,
    results,
  };
}

const sample = () =>
  report([
    result({ change: 'newly_rejected' }),
    result({ change: 'newly_rejected', itemId: 't:span2', sessionId: 'sess_2', stepPath: '/sessions/sess_2?project=p1&call=span2', tool: NASTY, now: rejected(NASTY) }),
    result({ change: 'newly_allowed', recorded: rejected('old'), now: allowed, definition: { recordedHash: null, currentHash: 'b', changes: [] } }),
    result({ change: 'feedback_changed', recorded: rejected('old text'), now: rejected('new text') }),
    result({ change: 'not_replayed', now: null, error: 'tool "gone" is not registered' }),
  ]);

describe('JUnit XML', () => {
  it('escapes the five XML specials and drops characters XML cannot hold', () => {
    expect(xmlEscape(`<&"'>`)).toBe('&lt;&amp;&quot;&apos;&gt;');
    expect(xmlEscape('a\u0001b\uD800c\uD83D\uDE00')).toBe('a\uFFFDb\uFFFDc\uD83D\uDE00');
  });

  it('is well-formed, and names, messages and texts with <&"\' read back as written', () => {
    const xml = junitReport(sample(), { webUrl: 'https://gt.example.com' });
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'testcase', htmlEntities: true }).parse(xml);
    const suite = doc.testsuites.testsuite;
    expect(suite.name).toBe('guardtrace-replay dataset ds_1 (guard change)');
    expect(suite).toMatchObject({ tests: '6', failures: '2', skipped: '1', time: '2.5', timestamp: '2026-12-06T01:00:00.000Z' });
    const cases = suite.testcase as Record<string, unknown>[];
    const nasty = NASTY.replace('\u0001', '\uFFFD').replace('\uD800', '\uFFFD');
    expect(cases.map((c) => c.name)).toEqual([
      'read_file trace1:span1 attempt 1: newly rejected',
      `${nasty} t:span2 attempt 1: newly rejected`,
      'read_file trace1:span1 attempt 1: newly allowed',
      'read_file trace1:span1 attempt 1: feedback changed',
      'read_file trace1:span1 attempt 1: not replayed',
      '7 unchanged attempts',
    ]);
    const failure = cases[1]!.failure as Record<string, string>;
    expect(failure.type).toBe('newly_rejected');
    expect(failure.message).toBe('Newly rejected: allowed → rejected (guard_violation)');
    expect(failure['#text']).toContain(`feedback now: ${nasty}`);
    expect(failure['#text']).toContain('step: https://gt.example.com/sessions/sess_2?project=p1&call=span2');
    // not in --fail-on: reported, not failed
    expect(cases[2]!.failure).toBeUndefined();
    expect(cases[4]!.skipped).toEqual({ message: 'tool "gone" is not registered' });
  });

  it('fails nothing when --fail-on is empty', () => {
    const xml = junitReport(report(sample().results, []), { webUrl: null });
    expect(xml).not.toContain('<failure');
    expect(xml).toMatch(/<testsuites [^>]*failures="0"/);
  });
});

describe('Markdown', () => {
  it('escapes Markdown and HTML in table cells', () => {
    expect(mdEscape('a|b <i>x</i> & *y* `z`\nnext')).toBe('a\\|b &lt;i&gt;x&lt;/i&gt; &amp; \\*y\\* \\`z\\` next');
  });

  it('has the summary table, the definition changes, and the calls grouped by change with links to their steps', () => {
    const md = markdownReport(sample(), { webUrl: 'https://gt.example.com' });
    // a call not replayed did not change: it is counted apart
    expect(md).toContain('## Guard replay: 4 of 12 attempts changed, 1 not replayed ❌');
    expect(md).toContain('dataset ds\\_1 · label guard change · 10 calls, 12 attempts · guards only · fails on newly rejected');
    expect(md).toContain('| Newly rejected ❌ | 2 |');
    expect(md).toContain('| Unchanged | 7 |');
    expect(md).toContain('- **read\\_file**: guard insideWorkspace: option roots changed \\["src","docs"\\] → \\["src"\\]');
    const sections = md.split('\n### ').slice(1).map((s) => s.split('\n')[0]);
    expect(sections).toEqual(['Definition changes', 'Newly rejected (2) ❌', 'Newly allowed (1)', 'Feedback changed (1)', 'Not replayed (1)']);
    expect(md).toContain(
      '| [sess\\_1 · span1](https://gt.example.com/sessions/sess_1?project=p1&call=span1) | read\\_file | 1 | allowed | rejected (guard\\_violation): insideWorkspace | path "docs/a.md" is outside the allowed folders: src |',
    );
    expect(md).toContain('| rejected (guard\\_violation): insideWorkspace | old text | new text |');
    expect(md).toContain('| tool "gone" is not registered |');
    // the nasty tool name stays inside its cell: every table row has the same number of unescaped pipes as its header
    const rows = md.split('\n').filter((l) => l.startsWith('| [sess_2') || l.startsWith('| [sess\\_2'));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.split(/(?<!\\)\|/).length).toBe(8);
    expect(rows[0]).not.toMatch(/<a|&"/);
  });

  it('without --web-url names the step instead of linking, and says how to get links', () => {
    const md = markdownReport(sample(), { webUrl: null });
    expect(md).not.toMatch(/[^\\]\]\(/);
    expect(md).toContain('Pass `--web-url`');
  });

  it('lists at most maxRows per change and says how many more', () => {
    const many = report(Array.from({ length: 7 }, (_, i) => result({ change: 'newly_rejected', itemId: `t:s${i}` })));
    const md = markdownReport(many, { webUrl: null, maxRows: 3 });
    expect(md.split('\n').filter((l) => l.startsWith('| sess\\_1'))).toHaveLength(3);
    expect(md).toContain('…and 4 more in the JSON report.');
  });

  it('says "no change" when nothing changed', () => {
    const md = markdownReport(report([]), { webUrl: null });
    expect(md).toContain('## Guard replay: no change\n');
    expect(md).not.toContain('###');
  });
});

describe('terminal', () => {
  it('prints the summary table with fail-on marks and the first changed calls', () => {
    const text = terminalSummary(sample(), { webUrl: null });
    expect(text).toContain('Guard replay of 10 calls (12 attempts), dataset ds_1, guard change');
    expect(text).toMatch(/\n {2}Newly rejected +2 {2}FAIL\n/);
    expect(text).toMatch(/\n {2}Unchanged +7\n/);
    expect(text).toContain('  read_file #1  allowed -> rejected (guard_violation)  /sessions/sess_1?project=p1&call=span1');
    expect(text).toContain('      feedback now: path "docs/a.md" is outside the allowed folders: src');
    expect(text).toContain('Not replayed (1):\n  read_file #1  tool "gone" is not registered');
  });

  it('draws a progress bar only on a TTY, at most every 100 ms', () => {
    let t = 0;
    const writes: string[] = [];
    const tty = { isTTY: true, columns: 100, write: (s: string) => writes.push(s) > 0 };
    const bar = progressBar(tty, 4, () => t);
    bar.tick(); // drawn: first
    t = 50;
    bar.tick(); // not drawn: 50 ms later
    t = 200;
    bar.tick();
    bar.stop();
    expect(writes).toHaveLength(3);
    expect(writes[0]).toContain('1/4 calls 25%');
    expect(writes[1]).toMatch(/\[#+-+\] 3\/4 calls 75% 15\/s$/);
    expect(writes[2]).toBe('\r\x1b[2K');

    const pipe: string[] = [];
    const quiet = progressBar({ isTTY: false, write: (s: string) => pipe.push(s) > 0 }, 4, () => t);
    quiet.tick();
    quiet.stop();
    expect(pipe).toEqual([]);
  });
});
