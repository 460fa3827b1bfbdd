'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { formatDuration, formatInt } from '@/lib/format';
import type { SpanNodeDto } from '@/server/queries/session-types';
import { ROW_HEIGHT } from './step-list';

/** Every span of the session as a parent/child tree (any instrumentation), virtualized. */
export function SpanTree({
  nodes,
  current,
  onSelect,
}: {
  nodes: SpanNodeDto[];
  /** Index of the selected node, -1 for none. */
  current: number;
  onSelect: (index: number) => void;
}) {
  const parent = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: nodes.length, getScrollElement: () => parent.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  useEffect(() => {
    if (current >= 0) v.scrollToIndex(current, { align: 'auto' });
  }, [current, v]);
  return (
    <div ref={parent} data-testid="span-tree" className="h-[calc(100vh-16rem)] min-h-80 overflow-auto rounded-lg border border-slate-200 bg-white">
      <div style={{ height: v.getTotalSize(), position: 'relative' }}>
        {v.getVirtualItems().map((item) => {
          const n = nodes[item.index] as SpanNodeDto;
          const error = n.statusCode === 2;
          return (
            <div
              key={`${n.traceId}:${n.spanId}`}
              style={{ position: 'absolute', top: 0, left: 0, width: '100%', height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
            >
              <button
                type="button"
                data-testid="tree-node"
                data-depth={n.depth}
                data-span={n.spanId}
                data-current={item.index === current ? 'true' : undefined}
                onClick={() => onSelect(item.index)}
                className={`flex h-full w-full min-w-0 items-center gap-2 border-b border-slate-100 px-2 text-left ${
                  item.index === current ? 'bg-indigo-50 ring-2 ring-inset ring-indigo-500' : 'hover:bg-slate-50'
                }`}
              >
                <span className="min-w-0 flex-1 truncate font-mono text-xs text-slate-900" style={{ paddingLeft: Math.min(n.depth, 16) * 12 }}>
                  <span className="text-slate-300">{n.depth ? '└ ' : ''}</span>
                  {n.name}
                </span>
                {error ? <span className="shrink-0 rounded bg-red-50 px-1 text-[10px] text-red-700">error</span> : null}
                {n.eventCount ? <span className="shrink-0 text-[10px] text-slate-500">{formatInt(n.eventCount)} ev</span> : null}
                {n.linkCount ? <span className="shrink-0 text-[10px] text-slate-500">{formatInt(n.linkCount)} ln</span> : null}
                <span className="shrink-0 text-[11px] tabular-nums text-slate-400">{formatDuration(n.durationMs)}</span>
              </button>
            </div>
          );
        })}
      </div>
    </div>
  );
}
