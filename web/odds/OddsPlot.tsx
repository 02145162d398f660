import { area, line, scaleLinear, scalePoint } from 'd3';
import type { ComboReport, SweepReport } from '../../sim/odds/report.js';
import { formatCycles, formatShare, runs } from '../../sim/odds/report.js';
import { showValue } from '../../sim/odds/range.js';
import { useWidth } from '../timeline/useWidth.js';
import { showParam } from './params.js';

/** The odds the view can plot, each with its own mark shape so they differ without colour too; the last is a share of lock cycles, not of runs. */
export const METRICS = [
  { key: 'doubleOwnership', label: 'double ownership', shape: 'circle' },
  { key: 'unsafe', label: 'stale write accepted', shape: 'triangle' },
  { key: 'doubleOwnedCycles', label: 'double-owned lock cycles', shape: 'square' },
] as const;
export type MetricKey = (typeof METRICS)[number]['key'];

/** Okabe–Ito colours for the series of a second parameter. */
const SERIES_COLOURS = ['var(--oi-vermillion)', 'var(--oi-blue)', 'var(--oi-green)', 'var(--oi-purple)', 'var(--oi-orange)', 'var(--oi-sky)'];

export interface Series {
  readonly label: string;
  readonly colour: string;
  readonly metric: (typeof METRICS)[number];
  readonly points: ReadonlyArray<{ x: unknown; combo: ComboReport; index: number }>;
}

/** Splits a report into lines: one per metric shown, and per value of the second parameter when there is one. */
export function seriesOf(report: SweepReport, metrics: readonly MetricKey[], labels: ReadonlyMap<string, string> = new Map()): Series[] {
  const [first, second] = report.vary;
  if (first === undefined) return [];
  const groups = second === undefined ? [undefined] : second.values;
  const out: Series[] = [];
  groups.forEach((g, gi) => {
    for (const m of METRICS) {
      if (!metrics.includes(m.key)) continue;
      const points = report.combinations
        .map((combo, index) => ({ x: combo.params[first.path], combo, index }))
        .filter((p) => second === undefined || p.combo.params[second.path] === g)
        .filter((p) => p.combo.runs > 0);
      const label = second === undefined ? m.label : `${m.label}, ${(labels.get(second.path) ?? second.path).replace(/ \(ms\)$/, '')} = ${showParam(g)}`;
      out.push({
        label,
        colour:
          second === undefined
            ? m.key === 'unsafe'
              ? 'var(--accent)'
              : m.key === 'doubleOwnedCycles'
                ? 'var(--oi-blue)'
                : 'var(--oi-vermillion)'
            : SERIES_COLOURS[gi % SERIES_COLOURS.length]!,
        metric: m,
        points,
      });
    }
  });
  return out;
}

interface Props {
  readonly report: SweepReport;
  readonly metrics: readonly MetricKey[];
  /** The value of the first parameter in the scenario as written: where the user stands. */
  readonly chosen: unknown;
  readonly selected: number | null;
  /** What to call the first parameter on its axis. */
  readonly axisLabel: string;
  /** What to call each varied path, for the legend. */
  readonly labels: ReadonlyMap<string, string>;
  onSelect(combo: number): void;
}

/** Probability against the varied parameter: a line per odds, its Wilson 95 % interval as a band, and the scenario's own value marked. */
export function OddsPlot({ report, metrics, chosen, selected, axisLabel, labels, onSelect }: Props) {
  const [ref, width] = useWidth<HTMLDivElement>(900);
  const first = report.vary[0];
  if (first === undefined) return null;
  const narrow = width < 560;
  const height = narrow ? 260 : 340;
  const m = { left: 46, right: 16, top: 36, bottom: 44 };
  const numeric = first.values.every((v) => typeof v === 'number');
  const xs = first.values;
  const xNum = scaleLinear()
    .domain([Math.min(...(xs as number[])), Math.max(...(xs as number[]))])
    .range([m.left + 8, width - m.right - 8]);
  if (xs.length === 1) xNum.domain([(xs[0] as number) - 1, (xs[0] as number) + 1]);
  const xCat = scalePoint<string>()
    .domain(xs.map(showValue))
    .range([m.left + 8, width - m.right - 8])
    .padding(0.5);
  const xOf = (v: unknown): number => (numeric ? xNum(v as number) : (xCat(showValue(v)) ?? m.left));
  const series = seriesOf(report, metrics, labels);
  // The axis reaches just past the highest band, to a round share: odds of a few percent, the usual answer, would sit flat
  // along the bottom of an axis to 100 %.
  const highest = Math.max(0.01, ...series.flatMap((s) => s.points.map((p) => p.combo[s.metric.key].hi)));
  const y = scaleLinear()
    .domain([0, Math.min(1, highest)])
    .nice(4)
    .range([height - m.bottom, m.top]);
  if (y.domain()[1]! > 1) y.domain([0, 1]);
  const yTicks = y.ticks(4);
  // One value swept is one place on the axis: ticks either side of it would name values no run had.
  const xTicks = numeric && xs.length > 1 ? xNum.ticks(narrow ? 4 : 8) : xs;

  return (
    <div className="odds-plot" ref={ref}>
      <svg
        width={width}
        height={height}
        role="group"
        aria-label={`Share of runs${metrics.includes('doubleOwnedCycles') ? ' and of lock cycles' : ''} against ${first.path}`}
        data-testid="odds-plot"
      >
        <rect className="plot-bg" x={m.left} y={m.top} width={Math.max(0, width - m.left - m.right)} height={height - m.top - m.bottom} />
        {yTicks.map((t) => (
          <g key={t}>
            <line className="odds-grid" x1={m.left} x2={width - m.right} y1={y(t)} y2={y(t)} />
            <text className="tick-label" x={m.left - 6} y={y(t) + 4} textAnchor="end" data-share={t}>
              {Number((t * 100).toFixed(1))} %
            </text>
          </g>
        ))}
        {xTicks.map((t) => (
          <text key={String(t)} className="tick-label" x={xOf(t)} y={height - m.bottom + 16} textAnchor="middle">
            {showParam(t)}
          </text>
        ))}
        <text className="axis-note" x={(m.left + width - m.right) / 2} y={height - 6} textAnchor="middle">
          {axisLabel}
        </text>
        {chosen !== undefined &&
          (numeric ? typeof chosen === 'number' && chosen >= xNum.domain()[0]! && chosen <= xNum.domain()[1]! : xs.some((v) => v === chosen)) && (
            <g data-testid="odds-chosen">
              <line className="odds-chosen" x1={xOf(chosen)} x2={xOf(chosen)} y1={m.top - 10} y2={height - m.bottom} />
              <text
                className="odds-chosen-label"
                x={xOf(chosen)}
                y={m.top - 14}
                textAnchor={xOf(chosen) > width - 70 ? 'end' : xOf(chosen) < m.left + 70 ? 'start' : 'middle'}
              >
                scenario: {showParam(chosen)}
              </text>
            </g>
          )}
        {series.map((s) => {
          const band = area<Series['points'][number]>()
            .x((p) => xOf(p.x))
            .y0((p) => y(p.combo[s.metric.key].lo))
            .y1((p) => y(p.combo[s.metric.key].hi));
          const mid = line<Series['points'][number]>()
            .x((p) => xOf(p.x))
            .y((p) => y(p.combo[s.metric.key].p));
          return (
            <g key={s.label} data-series={s.label}>
              <path className="odds-band" d={band(s.points as Series['points'][number][]) ?? ''} style={{ fill: s.colour }} />
              <path className={`odds-line odds-line-${s.metric.key}`} d={mid(s.points as Series['points'][number][]) ?? ''} style={{ stroke: s.colour }} />
            </g>
          );
        })}
        {[...series]
          .sort((a, b) => (a.metric.shape === b.metric.shape ? 0 : a.metric.shape === 'circle' ? -1 : b.metric.shape === 'circle' ? 1 : 0))
          .map((s) =>
            s.points.map((p) => {
              const share = p.combo[s.metric.key];
              const cx = xOf(p.x);
              const cy = y(share.p);
              const failing = p.combo.failing.length > 0;
              const title = `${labels.get(first.path) ?? first.path} = ${showParam(p.x)}${report.vary[1] === undefined ? '' : `, ${labels.get(report.vary[1].path) ?? report.vary[1].path} = ${showParam(p.combo.params[report.vary[1].path])}`}: ${s.metric.label} ${s.metric.key === 'doubleOwnedCycles' ? `${formatCycles(p.combo.doubleOwnedCycles)} in ${runs(p.combo.runs)}` : `${formatShare(share)} of ${runs(p.combo.runs)}`}${failing ? ' · click to open a failing run' : ''}`;
              const mark =
                s.metric.shape === 'circle' ? (
                  <circle className="odds-ring" cx={cx} cy={cy} r={7} style={{ stroke: s.colour }} />
                ) : s.metric.shape === 'square' ? (
                  <rect x={cx - 4} y={cy - 4} width={8} height={8} />
                ) : (
                  <path d={`M${cx},${cy - 5} L${cx + 5},${cy + 4} L${cx - 5},${cy + 4} Z`} />
                );
              return (
                <g
                  key={`${s.label}-${p.index}`}
                  className={`odds-point${selected === p.index ? ' selected' : ''}${failing ? ' failing' : ''}`}
                  style={{ fill: s.colour }}
                  role="button"
                  tabIndex={0}
                  aria-label={title}
                  data-combo={p.index}
                  data-metric={s.metric.key}
                  onClick={() => onSelect(p.index)}
                  onKeyDown={(ev) => {
                    if (ev.key === 'Enter' || ev.key === ' ') {
                      ev.preventDefault();
                      onSelect(p.index);
                    }
                  }}
                >
                  <title>{title}</title>
                  {/* A larger invisible target, so a point is easy to hit with a finger. */}
                  <circle className="odds-hit" cx={cx} cy={cy} r={12} />
                  {mark}
                </g>
              );
            }),
          )}
      </svg>
      <ul className="odds-legend" aria-label="Legend">
        {series.map((s) => (
          <li key={s.label}>
            <svg width="28" height="14" aria-hidden="true">
              <rect x="0" y="2" width="28" height="10" style={{ fill: s.colour, opacity: 0.2 }} />
              <line x1="0" x2="28" y1="7" y2="7" className={`odds-line odds-line-${s.metric.key}`} style={{ stroke: s.colour }} />
              {s.metric.shape === 'circle' ? (
                <circle cx="14" cy="7" r="4.5" style={{ fill: 'var(--bg)', stroke: s.colour, strokeWidth: 2 }} />
              ) : s.metric.shape === 'square' ? (
                <rect x="10" y="3" width="8" height="8" style={{ fill: s.colour }} />
              ) : (
                <path d="M14,2 L19,11 L9,11 Z" style={{ fill: s.colour }} />
              )}
            </svg>{' '}
            {s.label}
          </li>
        ))}
        <li className="muted">band: 95 % interval (Wilson)</li>
      </ul>
    </div>
  );
}
