/** The seed's agents and their tools: names, flags and plausible arguments. */
import type { Rng } from './random.ts';

export interface ToolDef {
  name: string;
  description: string;
  readOnly?: boolean;
  idempotent?: boolean;
  destructive?: boolean;
  external?: boolean;
  args: (r: Rng) => Record<string, unknown>;
  /** A plausible result, as the SDK records it (JSON text, clipped). */
  result: (r: Rng) => unknown;
}

const FILES = ['src/components/Button.tsx', 'src/app.ts', 'src/server/db.ts', 'README.md', 'src/lib/format.ts', 'package.json', 'src/routes/invoice.ts'];
const CUSTOMERS = ['cus_4821', 'cus_1177', 'cus_9043', 'cus_3310', 'cus_7712'];

export const TOOLS: Record<string, ToolDef> = {
  read_file: {
    name: 'read_file', description: 'Read a file of the workspace', readOnly: true,
    args: (r) => ({ path: r.pick(FILES) }),
    result: (r) => ({ bytes: r.int(200, 40_000), lines: r.int(10, 900) }),
  },
  write_file: {
    name: 'write_file', description: 'Overwrite a file of the workspace', idempotent: true,
    args: (r) => ({ path: r.pick(FILES), content: `export const value = ${r.int(1, 999)};\n`, mode: 'overwrite' }),
    result: (r) => ({ written: r.int(20, 4000) }),
  },
  create_file: {
    name: 'create_file', description: 'Create a new file',
    args: (r) => ({ path: `src/generated/file_${r.hex(4)}.ts`, content: "import { Button } from './Button';\n" }),
    result: () => ({ created: true }),
  },
  search_files: {
    name: 'search_files', description: 'Find files by name', readOnly: true,
    args: (r) => ({ name: r.pick(['Button.tsx', 'db.ts', 'invoice', 'format']) }),
    result: (r) => ({ matches: FILES.slice(0, r.int(0, 4)) }),
  },
  run_tests: {
    name: 'run_tests', description: 'Run the fast test suite', readOnly: true,
    args: (r) => ({ pattern: r.pick(['src/**/*.test.ts', 'src/lib', 'src/routes']) }),
    result: (r) => ({ passed: r.int(5, 400), failed: 0 }),
  },
  delete_branch: {
    name: 'delete_branch', description: 'Delete a git branch', destructive: true,
    args: (r) => ({ branch: `feature/${r.hex(6)}` }),
    result: () => ({ deleted: true }),
  },
  lookup_customer: {
    name: 'lookup_customer', description: 'Find a customer by e-mail', readOnly: true, external: true,
    args: (r) => ({ email: `${r.pick(['dana', 'li', 'omar', 'eva', 'sam'])}@${r.pick(['acme.io', 'globex.com', 'initech.dev'])}` }),
    result: (r) => ({ id: r.pick(CUSTOMERS), plan: r.pick(['pro', 'team', 'free']) }),
  },
  fetch_fx_rate: {
    name: 'fetch_fx_rate', description: 'Exchange rate between two currencies', readOnly: true, external: true,
    args: (r) => ({ from: 'USD', to: r.pick(['EUR', 'GBP', 'JPY', 'CHF']) }),
    result: (r) => ({ rate: r.int(50, 200) / 100 }),
  },
  charge_card: {
    name: 'charge_card', description: 'Charge a customer card', external: true,
    args: (r) => ({ customer_id: r.pick(CUSTOMERS), amount_cents: r.int(500, 50_000), currency: 'usd' }),
    result: (r) => ({ charge_id: `ch_${r.hex(10)}`, status: 'succeeded' }),
  },
  send_email: {
    name: 'send_email', description: 'Send an e-mail to a customer', external: true, idempotent: true,
    args: (r) => ({ to: `${r.pick(['dana', 'li', 'omar'])}@acme.io`, template: r.pick(['invoice', 'receipt', 'reminder']) }),
    result: (r) => ({ message_id: `msg_${r.hex(8)}` }),
  },
  query_db: {
    name: 'query_db', description: 'Run a read-only SQL query', readOnly: true,
    args: (r) => ({ sql: `SELECT id, total FROM invoices WHERE customer_id = '${r.pick(CUSTOMERS)}' LIMIT ${r.int(1, 50)}` }),
    result: (r) => ({ rows: r.int(0, 50) }),
  },
};

export interface AgentDef {
  name: string;
  service: string;
  tools: readonly string[];
  model: string;
  provider: string;
}

export const AGENTS: readonly AgentDef[] = [
  { name: 'file-agent', service: 'code-assistant', tools: ['read_file', 'write_file', 'create_file', 'search_files', 'run_tests', 'delete_branch'], model: 'gpt-4.1-mini', provider: 'openai' },
  { name: 'invoice-agent', service: 'billing-worker', tools: ['lookup_customer', 'fetch_fx_rate', 'charge_card', 'send_email', 'query_db'], model: 'claude-sonnet-4-5', provider: 'anthropic' },
  { name: 'support-bot', service: 'support-desk', tools: ['lookup_customer', 'query_db', 'send_email', 'search_files'], model: 'gpt-4.1', provider: 'openai' },
];

/** Names models invent that no agent registered (hallucinated tool names), with the tool meant. */
export const HALLUCINATED: Record<string, string> = {
  read_file: 'open_file',
  write_file: 'save_file',
  create_file: 'new_file',
  search_files: 'search_codebase',
  run_tests: 'execute_tests',
  delete_branch: 'remove_branch',
  lookup_customer: 'get_customer',
  fetch_fx_rate: 'currency_rate',
  charge_card: 'create_charge',
  send_email: 'email_customer',
  query_db: 'sql_query',
};
