const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

export function formatInt(n: number): string {
  return integer.format(n);
}

// A sampling weight is 1 / rate (rate 0.3: 3.333…): two decimals say which weight it is, where a
// whole number would name another (×3 beside counts scaled by 3.33).
const weight = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** A sampling weight as a person reads it: 3.33, 1.5, 10. */
export function formatWeight(w: number): string {
  return weight.format(w);
}

export function formatCompact(n: number): string {
  return Math.abs(n) < 10_000 ? integer.format(n) : compact.format(n);
}

/**
 * The width of a proportional bar, in percent of the largest: at least 1% for any value above
 * zero, so a small one stays visible, and none at all for zero.
 */
export function barPercent(value: number, max: number): number {
  if (!(max > 0) || !(value > 0)) return 0;
  return Math.min(100, Math.max(1, Math.round((100 * value) / max)));
}

/** 850 ms, 2.4 s, 3m 12s, 1h 05m. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 2 : 1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(Math.round(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** Guard durations are recorded in microseconds. */
export function formatMicros(us: number): string {
  if (us < 1000) return `${us < 10 ? us.toFixed(1) : Math.round(us)} µs`;
  return formatDuration(us / 1000);
}

// Rendered on the server only; UTC keeps every viewer (and every test) on the same clock.
const dateTime = new Intl.DateTimeFormat('en-US', {
  timeZone: 'UTC',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

export function formatDateTime(iso: string): string {
  return `${dateTime.format(new Date(iso))} UTC`;
}

/** Pretty-prints JSON text when it parses; returns the text unchanged otherwise. */
export function prettyJson(text: string | null | undefined): string {
  if (!text) return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
