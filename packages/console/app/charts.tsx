/**
 * The console's charts, drawn as inline SVG: bars over time (stacked by series) and a bar in a
 * table cell. Sizes are SVG attributes and colours are classes (styles.css, "Charts"): the
 * console's Content-Security-Policy allows no inline style. Each picture is an image named by a
 * summary of what it shows (`role="img"`, `aria-label`), each bar carries its figures as a
 * tooltip (`<title>`), and the page puts the numbers in a table beside it, for screen readers.
 */
import type { ComponentChildren } from 'preact';
import { barHeight } from './pages/overview-figures.js';

/** One series of a chart: its key in each column's values, its name in the legend, its colour class. */
export interface ChartSeries {
  key: string;
  label: string;
  class: string;
}

/** One bar (a bucket of time): its values by series key, and its figures in words for the tooltip. */
export interface ChartColumn {
  key: string;
  values: Readonly<Record<string, number>>;
  title: string;
}

export interface BarChartProps {
  /** The picture's accessible name: what it shows, with its highest figures. */
  summary: string;
  series: readonly ChartSeries[];
  columns: readonly ChartColumn[];
  /** The top of the scale; default the tallest column. */
  max?: number;
  /** Written under the chart: its first column, a note on the scale, its last column. */
  axis: readonly [ComponentChildren, ComponentChildren, ComponentChildren];
}

const WIDTH = 10;
const HEIGHT = 100;

/** Bars over time, a column per bucket, each stacked by series in the series' order from the bottom. */
export function BarChart({ summary, series, columns, max, axis }: BarChartProps) {
  const top = max ?? Math.max(0, ...columns.map((column) => series.reduce((sum, each) => sum + (column.values[each.key] ?? 0), 0)));
  return (
    <figure class="chart">
      <svg role="img" aria-label={summary} viewBox={`0 0 ${Math.max(1, columns.length) * WIDTH} ${HEIGHT}`} preserveAspectRatio="none" focusable="false">
        {columns.map((column, index) => {
          let y = HEIGHT;
          return (
            <g key={column.key}>
              <title>{column.title}</title>
              {/* The whole column takes the pointer, so a bucket without runs has its tooltip too. */}
              <rect class="chart-hit" x={index * WIDTH} y={0} width={WIDTH} height={HEIGHT} />
              {series.map((each) => {
                const height = barHeight(column.values[each.key] ?? 0, top, HEIGHT);
                if (height === 0) return null;
                y = Math.max(0, y - height);
                return <rect key={each.key} class={each.class} x={index * WIDTH + 1} y={y} width={WIDTH - 2} height={height} />;
              })}
            </g>
          );
        })}
      </svg>
      <figcaption class="chart-axis">
        <span>{axis[0]}</span>
        <span>{axis[1]}</span>
        <span>{axis[2]}</span>
      </figcaption>
    </figure>
  );
}

/** The colours of a chart's series, named (the picture's colours are not its only key: its table names them too). */
export function Legend({ series }: { series: readonly ChartSeries[] }) {
  return (
    <ul class="chart-legend">
      {series.map((each) => (
        <li key={each.key}>
          <span class={`chart-swatch ${each.class}`} aria-hidden="true" />
          {each.label}
        </li>
      ))}
    </ul>
  );
}

/** A share (0 to 1) as a bar, for a table cell beside its figure; named by `label`. */
export function ShareBar({ share, label, class: className }: { share: number; label: string; class?: string }) {
  const width = Math.min(1, Math.max(0, share)) * 100;
  return (
    <svg class={`share-bar ${className ?? ''}`} role="img" aria-label={label} viewBox="0 0 100 10" preserveAspectRatio="none" focusable="false">
      <rect class="share-bar-track" x={0} y={0} width={100} height={10} />
      {width > 0 && <rect x={0} y={0} width={Math.max(1, width)} height={10} />}
    </svg>
  );
}
