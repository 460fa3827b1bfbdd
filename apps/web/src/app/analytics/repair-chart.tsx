'use client';

import { useRouter } from 'next/navigation';
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';

export interface ChartSeries {
  key: string;
  label: string;
  color: string;
}

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
const full = new Intl.NumberFormat('en-US');

/**
 * Stacked bars: repair tokens per day, one stack segment per failure class. A click on a segment
 * opens the explorer at its day and class (`hrefs[day][class]`); the table under the chart has the
 * same links for the keyboard.
 */
export function RepairChart({
  data,
  series,
  hrefs,
}: {
  data: Array<Record<string, string | number>>;
  series: ChartSeries[];
  hrefs: Record<string, Record<string, string>>;
}) {
  const router = useRouter();
  return (
    <div data-testid="repair-chart" className="h-80 w-full">
      <BarChart responsive style={{ width: '100%', height: '100%' }} data={data} margin={{ top: 8, right: 8, left: 0, bottom: 0 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
        <XAxis dataKey="label" tick={{ fontSize: 11, fill: '#64748b' }} tickLine={false} axisLine={{ stroke: '#cbd5e1' }} minTickGap={12} />
        <YAxis
          tick={{ fontSize: 11, fill: '#64748b' }}
          tickLine={false}
          axisLine={false}
          width={48}
          tickFormatter={(v: number) => compact.format(v)}
        />
        <Tooltip
          cursor={{ fill: '#f1f5f9' }}
          formatter={(v, name) => [full.format(Number(v)), String(name)]}
          contentStyle={{ fontSize: 12, borderRadius: 6, borderColor: '#e2e8f0' }}
        />
        <Legend wrapperStyle={{ fontSize: 12 }} iconType="square" />
        {series.map((s, i) => (
          <Bar
            key={s.key}
            dataKey={s.key}
            name={s.label}
            stackId="repair"
            fill={s.color}
            isAnimationActive={false}
            cursor="pointer"
            onClick={(entry: { payload?: Record<string, unknown> }) => {
              const href = hrefs[String(entry.payload?.day)]?.[s.key];
              if (href) router.push(href);
            }}
            radius={i === series.length - 1 ? [3, 3, 0, 0] : 0}
          />
        ))}
      </BarChart>
    </div>
  );
}
