/**
 * A bar chart drawn as SVG by the app itself, with its data as a table beside it (webapp
 * decision: a chart library would weigh more than the console's charts need, and a canvas chart
 * says nothing to a screen reader). The picture is one image with a summary for its name (the
 * largest and the total); the table is the accessible, exact form of the same figures.
 */
import { useId } from "react";
import { DataTable } from "../ui/data-table.js";

export interface Bar {
  readonly label: string;
  /** Under the bar, where the whole label would not fit (`27 Nov` for `27 Nov 2026`). */
  readonly shortLabel?: string;
  readonly value: number;
}

const width = 640;
const height = 240;
const margin = { top: 16, right: 8, bottom: 40, left: 8 };

export function BarChart({
  title,
  bars,
  format,
  labelHeader,
  valueHeader,
}: {
  title: string;
  bars: readonly Bar[];
  format: (value: number) => string;
  labelHeader: string;
  valueHeader: string;
}) {
  const id = useId();
  const max = Math.max(0, ...bars.map((bar) => bar.value));
  const total = bars.reduce((sum, bar) => sum + bar.value, 0);
  const top = bars.reduce<Bar | undefined>(
    (best, bar) => (best === undefined || bar.value > best.value ? bar : best),
    undefined,
  );
  const summary =
    top === undefined
      ? `${title}: no data.`
      : `${title}: ${bars.length} bars, total ${format(total)}, highest ${format(top.value)} (${top.label}).`;
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const slot = bars.length === 0 ? plotWidth : plotWidth / bars.length;
  const barWidth = Math.max(2, slot * 0.7);
  // At most eight labels under the bars; the table has every one.
  const labelEvery = Math.max(1, Math.ceil(bars.length / 8));
  return (
    <figure className="chart">
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary} className="chart-picture">
        <line
          x1={margin.left}
          x2={width - margin.right}
          y1={height - margin.bottom}
          y2={height - margin.bottom}
          className="chart-axis"
        />
        {bars.map((bar, i) => {
          const barHeight = max === 0 ? 0 : (bar.value / max) * plotHeight;
          const x = margin.left + i * slot + (slot - barWidth) / 2;
          return (
            <g key={bar.label}>
              <rect
                x={x}
                y={height - margin.bottom - barHeight}
                width={barWidth}
                height={barHeight}
                className="chart-bar"
              >
                <title>{`${bar.label}: ${format(bar.value)}`}</title>
              </rect>
              {i % labelEvery === 0 ? (
                <text x={x + barWidth / 2} y={height - margin.bottom + 16} className="chart-label">
                  {bar.shortLabel ?? bar.label}
                </text>
              ) : null}
            </g>
          );
        })}
        {top === undefined || max === 0 ? null : (
          <text x={margin.left} y={margin.top - 4} className="chart-max">
            highest {format(max)}
          </text>
        )}
      </svg>
      <details>
        <summary>The figures as a table</summary>
        <DataTable
          labelledBy={`${id}-title`}
          rows={bars}
          rowKey={(bar) => bar.label}
          columns={[
            { header: labelHeader, rowHeader: true, cell: (bar) => bar.label },
            { header: valueHeader, cell: (bar) => format(bar.value) },
          ]}
        />
      </details>
    </figure>
  );
}
