/** Why a call or attempt failed, as the instrumentation reported it; long text wraps anywhere and clamps to 3 lines. */
export function FailureReason({ reason }: { reason: string | null }) {
  if (!reason) return null;
  return (
    <p
      data-testid="failure-reason"
      title={reason}
      className="mt-1.5 line-clamp-3 whitespace-pre-line font-mono text-xs text-red-800 wrap-anywhere"
    >
      {reason}
    </p>
  );
}
