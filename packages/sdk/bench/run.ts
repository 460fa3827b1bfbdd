/**
 * `pnpm --filter @guardtrace/sdk bench`: overhead per guarded call vs the floor (in memory and
 * with OTLP export), heap over 1M calls, the retry-storm efficacy of five arms (blind retries,
 * framework defaults, the careful tool author with and without repairs in code, Guardtrace) over
 * seeds 1-10 with a sensitivity table, and the package's size and
 * import time; writes bench/results.json for docs/benchmarks.md.
 */

import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EFFICACY_TASKS, runEfficacy, SENSITIVITY_TASKS } from './efficacy.ts';
import type { MemoryResult } from './memory.ts';
import { runOverhead } from './overhead.ts';
import { CAPTURE_MODES, runExportOverhead } from './overhead-export.ts';
import { PACKAGE_METHOD, packageRows, runPackageBench } from './package.ts';
import { CAREFUL_TOOL_RETRIES } from './sim-framework.ts';
import { TURN_CAP_PER_STEP } from './sim-model.ts';
import { FIX_ODDS, IDENTICAL_REPEAT, OUTAGE_ATTEMPTS, OUTAGE_SHARES, RATES, REPEATED_TEXT_FIX, RESEND_AFTER_TRANSIENT } from './sim-world.ts';

interface Row {
  benchmark: string;
  metric: string;
  value: string;
  target: string;
  pass: boolean;
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** The 1M-call heap measurement runs in its own process: it needs --expose-gc and a heap of its own. */
function runMemory(): MemoryResult {
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(here, 'memory.ts')], { cwd: path.dirname(here), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bench/memory.ts failed (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as MemoryResult;
}
const pct = (n: number): string => `${(n * 100).toFixed(1)}%`;

const rows: Row[] = [];
const started = performance.now();

const o = await runOverhead();
rows.push(
  { benchmark: 'overhead', metric: 'floor: zod parse + 3 bare spans (µs/call)', value: o.floorUs.toFixed(2), target: 'reference', pass: true },
  { benchmark: 'overhead', metric: 'guarded call: session.callTool (µs/call)', value: o.guardedUs.toFixed(2), target: 'reference', pass: true },
  { benchmark: 'overhead', metric: 'guarded / floor', value: `${o.ratio.toFixed(2)}x`, target: '<= 2x', pass: o.ratio <= 2 },
);

const x = await runExportOverhead();
const r3 = (t: [number, number, number]): string => t.map((n) => `${n.toFixed(2)}x`).join(' / ');
rows.push(
  {
    benchmark: 'overhead with export',
    metric: "CPU µs/call, median round: guarded (setupGuardtrace OTLP; capture 'all' | 'failures' | 'none') | floor + OTLP | 1-span floor + OTLP | floor, no export",
    value: `${CAPTURE_MODES.map((m) => x.capture[m].guardedUs.toFixed(1)).join(' / ')} | ${x.floorExportUs.toFixed(1)} | ${x.floorOneSpanExportUs.toFixed(1)} | ${x.floorNoExportUs.toFixed(1)}`,
    target: 'reference',
    pass: true,
  },
  // per content capture mode (bench/overhead-export.ts); issue 25's targets: with export <= 1.2x under failures, <= 1.4x under all
  ...CAPTURE_MODES.flatMap((m): Row[] => {
    const c = x.capture[m];
    const exportTarget = m === 'failures' ? 1.2 : m === 'all' ? 1.4 : undefined;
    const perCall = (b: number): number => b / (x.calls * (x.rounds + 1));
    // spans dropped from a full export queue were never sent: bytes scaled up to every span the arm made
    const sentShare = c.spans > 0 ? (c.spans - c.dropped) / c.spans : 1;
    const bytes = c.bytes / sentShare;
    const bytesRatio = bytes / x.bytes.floor;
    return [
      { benchmark: 'overhead with export', metric: `capture '${m}': guarded / floor with the same OTLP exporter (min / median / max of rounds)`, value: r3(c.vsFloorExport), target: exportTarget ? `<= ${exportTarget}x` : 'reference', pass: exportTarget ? c.vsFloorExport[1] <= exportTarget : true },
      { benchmark: 'overhead with export', metric: `capture '${m}': guarded / floor without export (min / median / max)`, value: r3(c.vsFloorNoExport), target: '<= 1.5x', pass: c.vsFloorNoExport[1] <= 1.5 },
      { benchmark: 'overhead with export', metric: `capture '${m}': OTLP request bytes per clean call, guarded | floor (guarded / floor)`, value: `${perCall(bytes).toFixed(0)} | ${perCall(x.bytes.floor).toFixed(0)} B (${bytesRatio.toFixed(2)}x; ${pct(1 - sentShare)} of spans dropped, queue full)`, target: '<= 1.5x', pass: bytesRatio <= 1.5 },
    ];
  }),
  { benchmark: 'overhead with export', metric: 'guarded / one-span floor with OTLP (min / median / max)', value: r3(x.vsFloorOneSpan), target: 'reference', pass: true },
  {
    benchmark: 'overhead with export',
    metric: "OTLP request bytes received: guarded (capture 'all') | floor | one-span floor",
    value: `${(x.bytes.guarded / 2 ** 20).toFixed(1)} | ${(x.bytes.floor / 2 ** 20).toFixed(1)} | ${(x.bytes.floorOneSpan / 2 ** 20).toFixed(1)} MiB`,
    target: 'reference',
    pass: true,
  },
);

const mem = runMemory();
const h = (n: string): string => `${mem.heapMiB[n]!.toFixed(2)} MiB`;
const growth = mem.heapMiB['1000000']! - mem.heapMiB['100000']!;
rows.push({
  benchmark: 'memory',
  metric: `heap used after gc, one session of ${mem.calls.toLocaleString('en')} guarded calls: after 1k | 100k | 1M`,
  value: `${h('1000')} | ${h('100000')} | ${h('1000000')} (${mem.spansExported.toLocaleString('en')} spans exported)`,
  target: 'flat (100k -> 1M grows < 1 MiB)',
  pass: growth < 1,
});

rows.push(...(await runEfficacy()));

rows.push(...packageRows(await runPackageBench()));

const wallS = (performance.now() - started) / 1000;
rows.push({ benchmark: 'bench', metric: 'wall time of this SDK bench (s), 1-min load average at the end', value: `${wallS.toFixed(0)} (load ${os.loadavg()[0]!.toFixed(1)})`, target: '<= ~180', pass: wallS <= 180 });

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const result = {
  rows,
  machine: `${cpu} x${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`,
  date: new Date().toISOString(),
  method: [
    `Overhead: ${o.calls.toLocaleString('en')} calls per round, ${o.rounds} rounds after a warm-up round, alternating floor and guarded in one process; median round reported.`,
    'Floor = the same zod safeParse + three nested bare OTel spans (tool, attempt, guard); guarded = Guardtrace session.callTool on a read-only tool',
    '(schema guard, execution, execute_tool/attempt/apply_guardrail spans with their attributes). Both export through a BatchSpanProcessor into an InMemorySpanExporter.',
    `Overhead with export: ${x.calls.toLocaleString('en')} calls per arm per round, ${x.rounds} rounds after a warm-up, arms interleaved in one process; a = session.callTool with setupGuardtrace's tracer`,
    '(BatchSpanProcessor 8192/512/1 s + OTLP/HTTP protobuf exporter) to a local node:http server on port 0 answering 200; b = the same zod parse and tool body under three nested plain',
    'tracer.startActiveSpan spans (tool, attempt, guard) with the same batch settings and the same exporter (guardtraceExporter) to the same server; b1 = the same with one span;',
    'c = b with no span processor. Cost = the CPU time of this process (user + system, the in-process server included) per call, not wall time (the machine is shared). Each timed round includes flushing its spans; every arm yields to the event loop every 256 calls. Ratios are per round (a/b, a/c), min / median / max.',
    "Arm a runs once per content capture mode (capture 'all' | 'failures' | 'none', one Guardtrace each on the same tracer, in turn within each round): 'failures' is a clean session not sampled in for content (cleanSessionRate 0, and setupGuardtrace without sampling has no tail sampler, so its spans are exported all the same); request bytes per arm are those the server received while the arm ran and flushed, scaled up by the share of its spans dropped from the full export queue (the guarded arms' spans are larger and the queue of 8192 overflows; the floor's plain BatchSpanProcessor does not count drops: its bytes are as received).",
    'Memory: bench/memory.ts in its own node --expose-gc process: one session, 1,000,000 session.callTool calls on a read-only tool with a schema and a predicate guard, tracing on through a',
    'BatchSpanProcessor into an exporter that counts and drops spans; gc() twice before each heapUsed reading (after 1k, 100k and 1M calls).',
    `Efficacy: ${EFFICACY_TASKS.toLocaleString('en')} seeded tasks per seed, seeds 1-10 (60% file tasks of 3-4 steps, 40% invoice tasks lookup_customer -> fetch_report -> charge_card), five arms on the same tasks and the same fault stream.`,
    `Mistake rates per step: hallucinated tool ${pct(RATES.hallucinatedTool)}, renamed parameter ${pct(RATES.renamedParameter)}, misspelled path ${pct(RATES.misspelledPath)} of file steps,`,
    `503 ${pct(RATES.transient503)} of lookups (an outage fails ${OUTAGE_ATTEMPTS.join(' / ')} attempts at ${OUTAGE_SHARES.map(pct).join(' / ')}), charge_card timeout ${pct(RATES.chargeTimeout)} (committed ${pct(RATES.timeoutCommitted)}), 403 ${pct(RATES.forbidden403)} of report fetches;`,
    `after a 503 or a timeout the model sends the call again with odds ${RESEND_AFTER_TRANSIENT} (else it stops: the task is not done).`,
    `Scripted model fix odds per turn, structured feedback vs raw error: ${Object.entries(FIX_ODDS).map(([k, v]) => `${k} ${v.structured}/${v.raw}`).join(', ')};`,
    `a failed fix repeats the identical call ${pct(IDENTICAL_REPEAT)} of the time; a text the model answered with the identical call and is shown again keeps ${pct(REPEATED_TEXT_FIX)} of its odds for the rest of the step`,
    `(seed 001: "If the model returns the identical invalid argument after reading your first error, the error is not actually actionable"; sensitivity rows 50% and 100%, the latter a model with no memory). Every rate and odds is an ASSUMPTION (none of the published sources gives a per-step rate per mistake kind or fix odds per text;`,
    'bench/sim-world.ts cites what they do give: the seed articles, Gorilla, ToolScan, BFCL and its V3 multi-turn blog, tau-bench), so all are varied in the sensitivity rows.',
    'Which odds apply depends only on the text shown: a text naming a field path or listing valid options (tool names, paths, discovered ids) gets the structured odds in every arm.',
    `Every arm has the same cap of ${TURN_CAP_PER_STEP} model turns per plan step (the first call and 3 repairs). Blind = any error goes back to the model as the raw error text.`,
    'Framework defaults (bench/sim-framework.ts) = the Vercel AI SDK 6 behaviour, built with its own classes: NoSuchToolError listing the available tools, InvalidToolInputError carrying',
    "zod's issue list with field paths, a tool's thrown error (503 and timeouts included) forwarded once as its message, the model deciding on its next turn in a tool loop (ToolLoopAgent, or generateText with stopWhen set; ai 6's executeToolCall returns the error",
    "as a tool-error; its maxRetries retries only model calls), and no idempotency key (a timed-out charge that had committed and is sent again is charged again).",
    "Careful tool author = the same framework, with what a careful engineer adds by hand: tools that throw errors as informative as Guardtrace's guards (a missing path lists the candidate paths,",
    "the files guard's own text; a 403 lists the reports the caller may read, the text Guardtrace shows after discovery: the structured odds there), transient errors (408/429/5xx, timeouts)",
    `retried in code ${CAREFUL_TOOL_RETRIES} times with 2 s / 4 s backoff (the AI SDK's figures for model calls), and the charge sent with an idempotency key (Stripe's Idempotency-Key: the same key returns the first result), so it is never made twice.`,
    "Careful author with repairs in code (reference, no target) = that author plus the repairs Guardtrace makes in code, written by hand: an experimental_repairToolCall that corrects an unknown tool name or",
    'argument name when exactly one close one fits and validates, and a read tool that opens the one file a missing path can have meant; for tools that only read, as Guardtrace by default.',
    'Guardtrace = the real runtime (src/, with its defaults: auto-repair in code of one-candidate mistakes on read-only/idempotent tools, progress-aware escalation; tracing off, simulated clock);',
    'the model reacts to its decisions (reject -> corrected call, replan -> new call; on a 403 the runtime runs the declared read-only discovery tool; fail_reconcile -> reconciled by idempotency key).',
    "Every model turn k of a task costs 4,000 + 2,000 x (k-1) input tokens (the seeds' context-replay model, src/cost.ts) plus every feedback text shown so far in the task (Guardtrace's note after a repair in code included; o200k tokens,",
    'gpt-tokenizer) plus 150 output tokens; repair tokens are the turns that follow a failed call.',
    "The targets compare repair tokens on the tasks framework defaults, the careful tool author (with and without repairs) and Guardtrace all complete (blind is left out: it is the floor, not a contender, and",
    'intersecting with it would keep only the tasks raw-error retries can finish). Escalated tasks are never completed, so they are never in that set and never count as a saving; they are reported apart,',
    "with the runtime's reason. The saving by mistake kind attributes each step's repair tokens to that step's mistake.",
    `Sensitivity: ${SENSITIVITY_TASKS.toLocaleString('en')} tasks per seed, the same 10 seeds, four contending arms, as measured and with all fix odds x0.5 or x2 (capped at 1), all mistake rates x0.5 or x2`,
    '(the committed-after-timeout share unchanged), the gap between structured and raw odds x0 or x0.5 (structured = raw + gap x (structured - raw)), the memory rows above, or the workspace of seed 000\'s',
    "own example (src/components/Button.tsx and src/ui/Button.tsx: a misspelled Button path has two candidates, so neither Guardtrace nor the careful author repairs it in code), outages twice as long, or the model",
    "resending after a 503 or a timeout half the time; each row's verdict is the success target. Tokens per completed task leave escalated tasks out, so they favour an arm that escalates its expensive tasks: the targets read the common tasks.",
    'Export overhead: Guardtrace spans carry the GenAI and guardtrace attributes (arguments, result, flags, decision, conversation id on each span), so its OTLP requests are several times',
    "the floor's bytes (row above); serializing and sending them is most of the gap to the floor.",
    PACKAGE_METHOD,
  ].join(' '),
};
writeFileSync(path.join(here, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
console.table(rows);
console.log(`wrote ${path.join(here, 'results.json')}`);
