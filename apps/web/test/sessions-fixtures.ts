/** Sessions the session list tests (sessions*.test.ts) seed: minutes after a fixed start, a call rejected once then fixed. */
const t0 = new Date('2026-11-20T10:00:00.000Z');
export const minutes = (n: number) => new Date(t0.getTime() + n * 60_000);

export const failing = (toolName: string, failureClass: string, extra: { arguments?: string; feedback?: string } = {}) => ({
  toolName,
  atMs: 10,
  attempts: [{ outcome: 'rejected' as const, failureClass, decision: 'reject_with_feedback', ...extra }, { outcome: 'success' as const }],
});
