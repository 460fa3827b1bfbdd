/** The alert rule form's fields as the server action reads them (actions.ts); checked further by alertRuleProblem. */
import { ALERT_COMPARISONS, ALERT_FORMATS, ALERT_KIND_NAMES } from '@guardtrace/db/alerts';
import { z } from 'zod';

const optional = z
  .string()
  .trim()
  .transform((v) => (v === '' ? null : v));
/**
 * A tool name as typed, spaces around it included: the collector stores a tool's name as its spans
 * send it, so a rule on `"  padded tool  "` trimmed to `padded tool` matched nothing and never fired.
 * Only spaces alone mean "any tool".
 */
const toolName = z.string().transform((v) => (v.trim() === '' ? null : v));

export const ruleInput = z.object({
  project: z.uuid(),
  name: z.string().trim().min(1, 'Name the rule').max(120, 'Name: at most 120 characters'),
  kind: z.enum(ALERT_KIND_NAMES as [string, ...string[]], { error: 'Choose what the rule measures' }),
  failureClass: optional,
  toolName,
  windowMinutes: z
    .string()
    .trim()
    .transform((v) => (/^\d+$/.test(v) ? Number(v) : Number.NaN)),
  // Not in the form for the new_* kinds (they have no threshold).
  comparison: z.preprocess((v) => (v === '' ? undefined : v), z.enum(Object.keys(ALERT_COMPARISONS) as [string, ...string[]]).default('gte')),
  // Numbers as a number input sends them (`Number` would also read "0x10" as 16): anything else
  // is NaN, which alertRuleProblem names.
  threshold: z
    .string()
    .trim()
    .transform((v) => (v === '' ? 0 : /^\d+(\.\d+)?([eE][+-]?\d+)?$/.test(v) ? Number(v) : Number.NaN)),
  webhookUrl: z.string().trim().min(1, 'Webhook URL: enter the URL to POST to'),
  format: z.enum(ALERT_FORMATS),
});

