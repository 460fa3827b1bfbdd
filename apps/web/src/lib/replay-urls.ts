/**
 * The replay's own routes, built the same way by the page (whose HTML requests the steps) and by
 * the browser (which takes that request over): only when the two URLs are identical.
 */
import { hrefWith } from './search-params';

/** `/sessions/{id}/replay`: every step and escalation, or (part `tree`) the span tree. */
export function replayDataUrl(basePath: string, project: string, part: 'steps' | 'tree' = 'steps'): string {
  return hrefWith(`${basePath}/replay`, { project, part: part === 'tree' ? 'tree' : undefined });
}

/** `/sessions/{id}/same-failure`: the sessions before and after this one with a failure. */
export function sameFailureUrl(basePath: string, project: string, sig: { toolName: string; failureClass: string; pointer: string | null }): string {
  const q = new URLSearchParams({ project, tool: sig.toolName, class: sig.failureClass });
  if (sig.pointer !== null) q.set('pointer', sig.pointer);
  return `${basePath}/same-failure?${q}`;
}
