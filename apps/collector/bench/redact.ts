/**
 * The redactor's cost per span, before and after a change, side by side in one run: the
 * previous redactor is read from git (`REDACT_BEFORE`, a commit) into a temporary module, and
 * both redact the same clones of the same spans in interleaved rounds. Spans: the benchmark's
 * guard-shaped sessions, with tool arguments and results taken from the ordinary payloads of
 * @guardtrace/secret-corpus (what a day of agent traffic looks like), and the same spans with
 * one secret shape each. `pnpm --filter @guardtrace/collector bench` runs it first;
 * `tsx bench/redact.ts` runs it alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { asText, ORDINARY_PAYLOADS, SECRET_SHAPES } from '@guardtrace/secret-corpus';
import { Normalizer } from '../src/normalize.ts';
import { decodeJsonRequest } from '../src/otlp-decode.ts';
import { RedactionScope, Redactor } from '../src/redact.ts';
import type { NormSpan } from '../src/span.ts';
import { request } from './payload.ts';

/** The redactor before issue 13's item 4 (the commit this benchmark was written against). */
const REDACT_BEFORE = process.env.REDACT_BEFORE ?? '8e39a3f';
const SESSIONS = 200;
const ROUNDS = 30;

interface SpanRedactor {
  /** The current redactor's second argument is a RedactionScope (one a round, as one a request), the older ones' a WeakSet. */
  span(span: NormSpan, scope?: never): void;
}

export interface RedactionRow {
  benchmark: string;
  metric: string;
  value: string;
  target: string;
  pass: boolean;
}

/** Guard-shaped spans whose arguments, results and feedback carry `texts` in turn (none: as they are). */
function spans(texts: string[]): NormSpan[] {
  const body = request(SESSIONS);
  if (texts.length === 0) return new Normalizer().normalize(decodeJsonRequest(Buffer.from(JSON.stringify(body)))).spans;
  let i = 0;
  const next = () => texts[i++ % texts.length] as string;
  const rs = (body.resourceSpans as { scopeSpans: { spans: { attributes: { key: string; value: { stringValue?: string } }[] }[] }[] }[])[0];
  // Each carrying string is distinct (its number beside the text): the corpus is shorter than the
  // spans, and a string that recurs in a request is redacted once (RedactionScope), which would
  // measure the memo, not the rules.
  for (const s of rs?.scopeSpans[0]?.spans ?? []) {
    for (const a of s.attributes) {
      if (a.key === 'gen_ai.tool.call.arguments') a.value = { stringValue: JSON.stringify({ path: `src/a${i}.ts`, content: next() }) };
      if (a.key === 'guardtrace.feedback') a.value = { stringValue: `Rejected (${i}): ${next()}` };
    }
    if (s.attributes.some((a) => a.key === 'gen_ai.tool.name')) {
      s.attributes.push({ key: 'gen_ai.tool.call.result', value: { stringValue: JSON.stringify({ ok: true, n: i, output: next() }) } });
    }
  }
  return new Normalizer().normalize(decodeJsonRequest(Buffer.from(JSON.stringify(body)))).spans;
}

/**
 * The previous redactor, from git; null when git or the commit is not there. Its rules module
 * comes along when it had one (`redact-rules.ts` from 2026-12; `@guardtrace/semconv/secret-rules`
 * since issue 26, resolved from this workspace when the copy sits beside the current source).
 */
async function before(): Promise<{ redactor: SpanRedactor; cleanup: () => void } | null> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
  const show = (file: string) => {
    try {
      return execFileSync('git', ['show', `${REDACT_BEFORE}:apps/collector/src/${file}`], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      return null;
    }
  };
  const source = show('redact.ts');
  if (source === null) return null;
  // Inside the app, so that a workspace import in the old source resolves as it did.
  const dir = mkdtempSync(path.join(root, 'apps/collector/bench/.redact-before-'));
  writeFileSync(path.join(dir, 'redact.ts'), source);
  const rules = show('redact-rules.ts');
  if (rules !== null) writeFileSync(path.join(dir, 'redact-rules.ts'), rules);
  const mod = (await import(pathToFileURL(path.join(dir, 'redact.ts')).href)) as { Redactor: new () => SpanRedactor };
  return { redactor: new mod.Redactor(), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Fastest round's nanoseconds per span of each redactor, over interleaved rounds on fresh
 * clones: on a shared machine other work only ever adds time, so the minimum is the cost.
 */
function measure(redactors: SpanRedactor[], input: NormSpan[]): number[] {
  const samples: number[][] = redactors.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, r] of redactors.entries()) {
      const copy = structuredClone(input);
      const scope = (r instanceof Redactor ? new RedactionScope() : new WeakSet<object>()) as never;
      const t = process.hrtime.bigint();
      for (const s of copy) r.span(s, scope);
      samples[i]?.push(Number(process.hrtime.bigint() - t) / copy.length);
    }
  }
  return samples.map((xs) => Math.min(...xs));
}

const us = (ns: number) => `${(ns / 1000).toFixed(2)} µs`;

export async function redactionBench(): Promise<{ rows: RedactionRow[]; method: string }> {
  const guard = spans([]);
  const ordinary = spans(ORDINARY_PAYLOADS.map((p) => p.text));
  const secret = spans(SECRET_SHAPES.map(asText));
  const previous = await before();
  const current = new Redactor();
  const rows: RedactionRow[] = [];
  try {
    for (const [name, input] of [
      ["the ingest benchmark's spans", guard],
      ['spans with ordinary payloads', ordinary],
      ['spans with a secret each', secret],
    ] as const) {
      const [after, was] = measure(previous ? [current, previous.redactor] : [current], input);
      // 25k spans/s on one core leaves 40 µs a span for everything: redaction may take a quarter.
      rows.push({ benchmark: `redaction, ${name}`, metric: 'per span', value: us(after as number), target: '<= 10 µs (a quarter of 40 µs)', pass: (after as number) <= 10_000 });
      if (was !== undefined) {
        rows.push({ benchmark: `redaction, ${name}`, metric: `before (${REDACT_BEFORE}) / ratio`, value: `${us(was)} / ${((after as number) / was).toFixed(2)}x`, target: '(informational)', pass: true });
      }
    }
  } finally {
    previous?.cleanup();
  }
  const method =
    `Redaction: ${SESSIONS * 5} of the ingest benchmark's guard-shaped spans as they are, and with tool arguments, results and feedback carrying the ${ORDINARY_PAYLOADS.length} ordinary payloads ` +
    `(or the ${SECRET_SHAPES.length} secret shapes) of @guardtrace/secret-corpus in turn; each redactor redacts fresh clones in ${ROUNDS} interleaved rounds ` +
    `in one process (the fastest round of each); "before" is apps/collector/src/redact.ts at ${REDACT_BEFORE}, read from git.`;
  return { rows, method };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { rows, method } = await redactionBench();
  console.log(method);
  console.table(rows);
}
