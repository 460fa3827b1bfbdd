import { z } from 'zod';
import type { Guardtrace } from '../src/guardtrace.ts';
import type { ReconcileResult } from '../src/types.ts';

const createFileSchema = z.object({ path: z.string().min(1), content: z.string(), mode: z.number().int().default(0o644) });

/** Registers the seeds' tools with scripted behaviour; returns counters a test can inspect. */
export function registerSeedTools(gt: Guardtrace, script: { lookup?: () => unknown; charge?: () => unknown; reconcile?: () => ReconcileResult } = {}) {
  const calls = { create: 0, lookup: 0, charge: 0, reconcile: [] as string[], keys: [] as string[] };
  gt.tool({
    name: 'create_file',
    description: 'Create a file',
    schema: createFileSchema,
    execute: (a) => {
      calls.create += 1;
      return { written: a.path };
    },
  });
  gt.tool({
    name: 'lookup_customer',
    description: 'Find a customer by email',
    schema: z.object({ email: z.string() }),
    flags: { readOnly: true, external: true },
    execute: () => {
      calls.lookup += 1;
      return script.lookup ? script.lookup() : { id: 'cus_1' };
    },
  });
  gt.tool({
    name: 'charge_card',
    description: 'Charge a customer',
    schema: z.object({ customer_id: z.string(), amount_cents: z.number().int().positive() }),
    flags: { external: true },
    execute: (_a, ctx) => {
      calls.charge += 1;
      calls.keys.push(ctx.idempotencyKey);
      return script.charge ? script.charge() : { charge: 'ch_1' };
    },
    reconcile: (key) => {
      calls.reconcile.push(key);
      return script.reconcile ? script.reconcile() : { status: 'unknown' };
    },
  });
  return calls;
}

export const httpError = (status: number, headers: Record<string, string> = {}) =>
  Object.assign(new Error(`HTTP ${status}`), { status, headers });
