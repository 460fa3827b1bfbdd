/**
 * Tools of the scripted demo: an in-memory workspace for the file agent and a scripted
 * payment provider for the invoice agent. Deterministic: no network, no randomness.
 */
import { z } from 'zod';
import { type Guardtrace, TransientFailure } from '../src/index.ts';

export const WORKSPACE: Record<string, string> = {
  'src/components/Button.tsx': 'export function Button() {\n  return <button />;\n}\n',
  'src/ui/Button.tsx': 'export const Button = () => null;\n',
  'src/api/routes.ts': "import { logger } from '../utils/logger';\n",
  'src/utils/logger.ts': 'export const logger = console;\n',
  'config/app.yaml': 'port: 8080\n',
};

/** Behaviour switches the scenarios flip. */
export interface DemoScript {
  lookupFailures: number;
  chargeHangsMs: number;
  fxAlwaysDown: boolean;
}

export function registerDemoTools(gt: Guardtrace, script: DemoScript, files: Record<string, string> = { ...WORKSPACE }) {
  const charges: { key: string; customer: string; amount: number }[] = [];
  gt.tool({
    name: 'read_file',
    description: 'Read a file of the workspace',
    schema: z.object({ path: z.string().min(1) }),
    flags: { readOnly: true },
    execute: ({ path }) => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file, open '${path}'`), { code: 'ENOENT' });
      return { path, text };
    },
  });
  gt.tool({
    name: 'search_files',
    description: 'List workspace files whose path ends with a name',
    schema: z.object({ name: z.string().min(1) }),
    flags: { readOnly: true },
    execute: ({ name }) => Object.keys(files).filter((p) => p.endsWith(name)),
  });
  gt.tool({
    name: 'create_file',
    description: 'Create a file in the workspace',
    schema: z.object({ path: z.string().min(1), content: z.string(), mode: z.number().int().default(0o644) }),
    flags: { destructive: false },
    execute: ({ path, content }) => {
      files[path] = content;
      return { written: path, bytes: content.length };
    },
  });
  gt.tool({
    name: 'lookup_customer',
    description: 'Find a customer by email (CRM, read-only)',
    schema: z.object({ email: z.string().email() }),
    flags: { readOnly: true, external: true },
    execute: ({ email }) => {
      if (script.lookupFailures > 0) {
        script.lookupFailures -= 1;
        throw Object.assign(new Error('503 Service Unavailable from crm'), { status: 503 });
      }
      return { customer_id: 'cus_4821', email, plan: 'team' };
    },
  });
  gt.tool({
    name: 'charge_card',
    description: 'Charge the customer card on file (payment provider)',
    schema: z.object({ customer_id: z.string(), amount_cents: z.number().int().positive(), currency: z.enum(['usd', 'eur']) }),
    flags: { external: true },
    timeoutMs: 150,
    execute: async ({ customer_id, amount_cents }, ctx) => {
      // the provider records the charge, then the response is slow to come back
      charges.push({ key: ctx.idempotencyKey, customer: customer_id, amount: amount_cents });
      if (script.chargeHangsMs > 0) await new Promise((r) => setTimeout(r, script.chargeHangsMs));
      return { charge_id: `ch_${charges.length}`, status: 'succeeded' };
    },
    reconcile: (key) => {
      const found = charges.findIndex((c) => c.key === key);
      return found >= 0 ? { status: 'committed', value: { charge_id: `ch_${found + 1}`, status: 'succeeded' } } : { status: 'not_committed' };
    },
  });
  gt.tool({
    name: 'fetch_fx_rate',
    description: 'Exchange rate from the treasury service',
    schema: z.object({ from: z.string().length(3), to: z.string().length(3) }),
    flags: { readOnly: true, external: true },
    execute: () => {
      if (script.fxAlwaysDown) throw new TransientFailure('treasury returned 503');
      return { rate: 0.92 };
    },
  });
  return { files, charges };
}
