function Bar({ className }: { className: string }) {
  return <div className={`animate-pulse rounded bg-slate-200/80 ${className}`} />;
}

export function TableSkeleton({ rows = 8 }: { rows?: number }) {
  return (
    <div className="overflow-hidden rounded-lg border border-slate-200 bg-white" role="status" aria-busy="true" aria-label="Loading">
      <div className="border-b border-slate-200 bg-slate-50 px-4 py-3">
        <Bar className="h-3 w-1/3" />
      </div>
      {Array.from({ length: rows }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: static placeholder rows
        <div key={i} className="flex gap-6 border-b border-slate-100 px-4 py-3 last:border-0">
          <Bar className="h-3 w-40" />
          <Bar className="h-3 w-24" />
          <Bar className="h-3 w-32" />
          <Bar className="h-3 w-16" />
          <Bar className="h-3 flex-1" />
        </div>
      ))}
    </div>
  );
}

export function TimelineSkeleton() {
  return (
    <div className="space-y-3" role="status" aria-busy="true" aria-label="Loading">
      {[0, 1, 2, 3].map((i) => (
        <div key={i} className="rounded-lg border border-slate-200 bg-white p-4">
          <Bar className="h-3 w-1/4" />
          <Bar className="mt-3 h-3 w-2/3" />
          <Bar className="mt-2 h-3 w-1/2" />
        </div>
      ))}
    </div>
  );
}

export function ChartSkeleton() {
  return (
    <div className="flex h-72 items-end gap-2 rounded-lg border border-slate-200 bg-white p-6" aria-busy="true">
      {[40, 65, 30, 80, 55, 70, 45, 60, 35, 75].map((h) => (
        <div key={h} className="flex-1 animate-pulse rounded-t bg-slate-200/80" style={{ height: `${h}%` }} />
      ))}
    </div>
  );
}
