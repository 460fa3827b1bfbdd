import type { AuditEntryRow } from '@guardtrace/db';

const pct = (v: unknown) => (typeof v === 'number' ? `${Math.round(v * 1000) / 10}%` : '?');

/** One audit entry in words. */
export function describeAudit(e: Pick<AuditEntryRow, 'action' | 'target' | 'details'>): string {
  const d = (e.details ?? {}) as Record<string, unknown>;
  const t = e.target ?? '';
  switch (e.action) {
    case 'project.created':
      return `created the project ${t}`;
    case 'project.renamed':
      return `renamed the project from ${String(d.from)} to ${String(d.to)}`;
    case 'key.created':
      return `created the API key ${t}`;
    case 'key.revoked':
      return `revoked the API key ${t}`;
    case 'sampling.changed':
      return `changed clean sessions kept from ${pct(d.from)} to ${pct(d.to)}`;
    case 'retention.changed':
      return `changed retention from ${String(d.from ?? '?')} to ${String(d.to ?? '?')} days`;
    case 'price.set':
      return `set the price of ${t} to $${String(d.inputPerMTok)} input, $${String(d.cachedInputPerMTok)} cached input, $${String(d.outputPerMTok)} output per million tokens${d.from ? ' (was a project price)' : ''}`;
    case 'price.removed':
      return `removed the project's price of ${t} (the built-in table applies again)`;
    case 'member.invited':
      return `created an invitation link for a ${t}`;
    case 'invitation.revoked':
      return 'revoked an invitation link';
    case 'member.joined':
      return `${t} joined as ${String(d.role)}`;
    case 'member.role_changed':
      return `changed the role of ${t} from ${String(d.from)} to ${String(d.to)}`;
    case 'member.removed':
      return `removed ${t} (${String(d.role)})`;
    case 'alert.created':
      return `created the alert rule ${t} (webhook ${String(d.webhookUrl)})`;
    case 'alert.muted':
      return `muted the alert rule ${t}`;
    case 'alert.unmuted':
      return `unmuted the alert rule ${t}`;
    case 'alert.deleted':
      return `deleted the alert rule ${t}`;
    case 'alert.tested':
      // A new_* rule's test: one delivery per new class or tool.
      if (typeof d.deliveries === 'number' && d.deliveries > 1) {
        return `sent ${d.deliveries} tests of the alert rule ${t}: ${d.ok ? 'all delivered' : `not all delivered (${String(d.error)})`}`;
      }
      return `sent a test of the alert rule ${t}: ${d.ok ? 'delivered' : `not delivered (${String(d.error)})`}`;
    case 'dataset.created':
      return `created the dataset ${t} from ${String(d.sourceKind)} ${String(d.source)}`;
    case 'dataset.deleted':
      return `deleted the dataset ${t} (${String(d.itemCount)} calls)`;
    default:
      return `${e.action} ${t}`.trim();
  }
}
