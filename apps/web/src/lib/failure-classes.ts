import { FAILURE_CLASSES, type FailureClass } from '@guardtrace/semconv';

/**
 * What passed: the replay's attempt dots and bars, analytics' "fixed" bars. No failure class is
 * drawn in a green (a failed attempt must never read as one that passed); failures also differ by
 * shape where a dot stands alone (the step list's squares against circles).
 */
export const SUCCESS_COLOR = '#059669';

/** Display style of each failure class: badge classes (light UI) and the chart colour. */
export interface ClassStyle {
  label: string;
  badge: string;
  color: string;
}

const STYLES: Record<FailureClass, ClassStyle> = {
  guard_violation: { label: 'guard violation', badge: 'bg-rose-50 text-rose-800 ring-rose-200', color: '#e11d48' },
  invalid_arguments: { label: 'invalid arguments', badge: 'bg-amber-50 text-amber-800 ring-amber-200', color: '#d97706' },
  unknown_tool: { label: 'unknown tool', badge: 'bg-violet-50 text-violet-800 ring-violet-200', color: '#7c3aed' },
  missing_resource: { label: 'missing resource', badge: 'bg-cyan-50 text-cyan-800 ring-cyan-200', color: '#0891b2' },
  transient: { label: 'transient', badge: 'bg-yellow-50 text-yellow-800 ring-yellow-300', color: '#b58105' },
  execution_feedback: { label: 'execution feedback', badge: 'bg-blue-50 text-blue-800 ring-blue-200', color: '#2563eb' },
  uncertain_side_effect: {
    label: 'uncertain side effect',
    badge: 'bg-fuchsia-50 text-fuchsia-800 ring-fuchsia-200',
    color: '#c026d3',
  },
  fatal: { label: 'fatal', badge: 'bg-red-100 text-red-900 ring-red-300', color: '#991b1b' },
  budget_exhausted: { label: 'budget exhausted', badge: 'bg-stone-100 text-stone-800 ring-stone-300', color: '#57534e' },
  tool_error: { label: 'tool error', badge: 'bg-orange-50 text-orange-800 ring-orange-200', color: '#ea580c' },
};

/** Classes the SDK does not know yet (newer SDKs, other instrumentations) still get a style. */
const UNKNOWN_STYLE: ClassStyle = { label: '', badge: 'bg-slate-100 text-slate-700 ring-slate-300', color: '#64748b' };

export function classStyle(cls: string): ClassStyle {
  const known = (FAILURE_CLASSES as readonly string[]).includes(cls) ? STYLES[cls as FailureClass] : undefined;
  return known ?? { ...UNKNOWN_STYLE, label: cls.replaceAll('_', ' ') };
}
