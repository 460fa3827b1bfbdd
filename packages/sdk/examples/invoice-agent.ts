/**
 * The second seed's invoice agent, against a real (local) CRM and payment provider over HTTP:
 * a 503 with Retry-After is retried; an empty lookup gets one corrected retry (widen to the
 * domain); a timeout on charge_card is never retried but reconciled by idempotency key, and
 * the model's regenerated charge for the same invoice does not charge twice.
 *
 *   tsx examples/invoice-agent.ts
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import type { Tracer } from '@opentelemetry/api';
import { z } from 'zod';
import { replayInputTokens } from '../src/cost.ts';
import { type CallResult, FeedbackRequired, Guardtrace, predicate } from '../src/index.ts';
import { setupGuardtrace } from '../src/setup.ts';

/** A local CRM + payment provider. The first charge is recorded, then answered too late. */
export async function startProvider(): Promise<{ url: string; charges: { key: string; amount: number }[]; close(): Promise<void> }> {
  const charges: { key: string; amount: number }[] = [];
  let crmCalls = 0;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    if (url.pathname === '/customers') {
      crmCalls += 1;
      if (crmCalls === 1) return json(503, { error: 'crm warming up' }, { 'retry-after': '0' });
      const domain = url.searchParams.get('domain');
      return json(200, { customers: domain === 'acme.io' ? [{ id: 'cus_4821', email: 'billing@acme.io' }] : [] });
    }
    if (url.pathname === '/charges' && req.method === 'POST') {
      let body = '';
      for await (const c of req) body += c;
      const key = String(req.headers['idempotency-key']);
      const existing = charges.findIndex((c) => c.key === key);
      if (existing < 0) charges.push({ key, amount: JSON.parse(body).amount_cents });
      if (charges.length === 1 && existing < 0) await new Promise((r) => setTimeout(r, 600)); // slow ack
      return json(200, { id: `ch_${charges.length}`, status: 'succeeded' });
    }
    if (url.pathname === '/charges' && req.method === 'GET') {
      const i = charges.findIndex((c) => c.key === url.searchParams.get('idempotency_key'));
      return i < 0 ? json(404, { error: 'no such charge' }) : json(200, { id: `ch_${i + 1}`, status: 'succeeded' });
    }
    json(404, {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, charges, close: () => new Promise((r) => server.close(() => r())) };
}

async function http(url: string, init: RequestInit & { signal?: AbortSignal } = {}): Promise<unknown> {
  const res = await fetch(url, init);
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(`${res.status} from ${new URL(url).pathname}`), { status: res.status, headers: res.headers });
  return body;
}

export function registerInvoiceTools(gt: Guardtrace, provider: string): void {
  gt.tool({
    name: 'lookup_customer',
    description: 'Find customers by exact email or by email domain',
    schema: z.object({ email: z.string().email().optional(), domain: z.string().optional() }),
    flags: { readOnly: true, external: true },
    guards: [predicate({ name: 'one_filter', test: (a) => Boolean(a.email) !== Boolean(a.domain), message: 'Give exactly one of "email" or "domain".', failureClass: 'invalid_arguments' })],
    // an empty result is ambiguous, the call is read-only: one corrected retry, then replan
    policy: { execution_feedback: { retries: 1, decision: 'corrected_retry', onExhausted: 'replan' } },
    execute: async (a, ctx) => {
      const q = a.email ? `email=${encodeURIComponent(a.email)}` : `domain=${encodeURIComponent(a.domain ?? '')}`;
      const r = (await http(`${provider}/customers?${q}`, { signal: ctx.signal })) as { customers: unknown[] };
      if (r.customers.length === 0 && a.email) {
        throw new FeedbackRequired(`No customer with email ${a.email}. Widen the search: {"domain":"${a.email.split('@')[1]}"}`);
      }
      return r.customers;
    },
  });
  gt.tool({
    name: 'charge_card',
    description: 'Charge the card on file for an invoice',
    schema: z.object({ customer_id: z.string(), invoice_id: z.string(), amount_cents: z.number().int().positive() }),
    flags: { external: true },
    timeoutMs: 200,
    // the invoice is the intent: a regenerated call with reworded arguments maps to the same key
    idempotencyArgs: (a) => ({ invoice: a.invoice_id, amount: a.amount_cents }),
    execute: async (a, ctx) =>
      http(`${provider}/charges`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': ctx.idempotencyKey },
        body: JSON.stringify(a),
        signal: ctx.signal,
      }),
    reconcile: async (key) => {
      try {
        return { status: 'committed', value: await http(`${provider}/charges?idempotency_key=${key}`) };
      } catch (err) {
        return (err as { status?: number }).status === 404 ? { status: 'not_committed' } : { status: 'unknown' };
      }
    },
  });
}

export interface InvoiceAgentRun {
  sessionId: string;
  outcome: string;
  charges: number;
  steps: { tool: string; decision: string; ok: boolean; deduplicated?: boolean; reconcile?: string }[];
}

export async function runInvoiceAgent(opts: { tracer?: Tracer } = {}): Promise<InvoiceAgentRun> {
  const provider = await startProvider();
  try {
    const gt = new Guardtrace({ ...(opts.tracer ? { tracer: opts.tracer } : {}), backoff: { baseMs: 20, maxMs: 100 } });
    registerInvoiceTools(gt, provider.url);
    const s = gt.session({ agentName: 'invoice-agent', userId: 'ops-7' });
    const steps: InvoiceAgentRun['steps'] = [];
    let step = 0;
    const turn = (out: number, repairs?: CallResult) => {
      step += 1;
      s.recordModelCall({ model: 'gpt-4.1-mini', provider: 'openai', inputTokens: replayInputTokens(step), outputTokens: out, ...(repairs && !repairs.ok ? { repairs } : {}) });
    };
    const call = async (tool: string, args: unknown, o: { callId: string; intentId?: string }) => {
      const r = await s.callTool(tool, args, o);
      const st: InvoiceAgentRun['steps'][number] = { tool, ok: r.ok, decision: r.ok ? 'proceed' : r.decision };
      if (r.ok && r.deduplicated) st.deduplicated = true;
      if (!r.ok && r.reconciliation) st.reconcile = r.reconciliation.status;
      steps.push(st);
      return r;
    };
    turn(80);
    const empty = await call('lookup_customer', { email: 'dana@acme.io' }, { callId: 'call_1' });
    turn(60, empty);
    await call('lookup_customer', { domain: 'acme.io' }, { callId: 'call_2' });
    turn(90);
    const charge = await call('charge_card', { customer_id: 'cus_4821', invoice_id: 'INV-2031', amount_cents: 12_900 }, { callId: 'call_3', intentId: 'INV-2031' });
    turn(70, charge); // the model, told the outcome is being reconciled, tries again anyway
    await call('charge_card', { amount_cents: 12_900, invoice_id: 'INV-2031', customer_id: 'cus_4821' }, { callId: 'call_4', intentId: 'INV-2031' });
    turn(40);
    const outcome = await s.end();
    return { sessionId: s.id, outcome, charges: provider.charges.length, steps };
  } finally {
    await provider.close();
  }
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const endpoint = process.env.GUARDTRACE_ENDPOINT;
  const apiKey = process.env.GUARDTRACE_API_KEY;
  const otel = endpoint && apiKey ? setupGuardtrace({ endpoint, apiKey, serviceName: 'invoice-agent-example' }) : undefined;
  const run = await runInvoiceAgent(otel ? { tracer: otel.tracer } : {});
  for (const st of run.steps) console.log(`${st.tool.padEnd(16)} ${st.decision}${st.deduplicated ? ' (answered from the idempotency store)' : ''}${st.reconcile ? ` (reconcile: ${st.reconcile})` : ''}`);
  console.log(`session ${run.sessionId}: ${run.outcome}; card charged ${run.charges} time(s)`);
  await otel?.shutdown();
}
