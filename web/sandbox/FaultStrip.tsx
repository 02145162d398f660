import { scaleLinear } from 'd3-scale';
import { useRef } from 'react';
import type { Scenario } from '../../sim/scenario/types.js';
import { formatInstant } from '../../sim/time.js';
import type { LoadedTrace } from '../state/traces.js';
import { textPx } from '../timeline/layout.js';
import { tickAnchor, timeTicks } from '../timeline/ticks.js';
import { useWidth } from '../timeline/useWidth.js';
import { faultDurationMs } from './templates.js';
import { faultName } from './words.js';

/** A fault's row: its name on top, its bar under it, so that neither covers the other. */
const ROW_H = 24;
const BAR_Y = 15;
const BAR_H = 6;
const TOP = 18;

/**
 * The faults on a time axis, each a marker to drag (or move with the arrow
 * keys) to when it strikes. Under them, faintly, when each client believed
 * it held the lock in the last run, so a fault can be put where it matters.
 */
export function FaultStrip({
  scenario,
  horizonMs,
  trace,
  moveTo,
}: {
  scenario: Scenario;
  horizonMs: number;
  trace: LoadedTrace | null;
  moveTo: (index: number, atMs: number) => void;
}) {
  const [box, boxW] = useWidth<HTMLDivElement>(600);
  // The strip's border takes a pixel on each side of the box.
  const width = Math.max(100, boxW - 2);
  const dragging = useRef<number | null>(null);
  const clients = trace?.model.clients ?? [];
  const height = TOP + Math.max(1, scenario.faults.length) * ROW_H + clients.length * 6 + 16;
  const x = (ms: number) => (Math.max(0, Math.min(horizonMs, ms)) / horizonMs) * width;
  const step = Math.max(1, Math.round(horizonMs / 200));
  const msAt = (clientX: number, el: Element) => {
    const r = el.getBoundingClientRect();
    return Math.max(0, Math.min(horizonMs, Math.round((((clientX - r.left) / r.width) * horizonMs) / step) * step));
  };
  // Round ticks, as on the timeline ("10 s", not "11.000 s"), about one per 120 px.
  const ticks = timeTicks(scaleLinear([0, horizonMs * 1000], [0, width]), Math.max(2, Math.floor(width / 120)));
  return (
    <div ref={box} className="fault-strip-box">
      <svg
        className="fault-strip"
        width={width}
        height={height}
        role="group"
        aria-label={`Faults on the time axis, 0 to ${formatInstant(horizonMs * 1000)}: drag a marker, or focus it and use the arrow keys`}
        onPointerMove={(ev) => {
          if (dragging.current !== null) moveTo(dragging.current, msAt(ev.clientX, ev.currentTarget));
        }}
        onPointerUp={() => (dragging.current = null)}
        onPointerCancel={() => (dragging.current = null)}
      >
        {ticks.map((t) => (
          <g key={t.us} transform={`translate(${x(t.us / 1000)},0)`}>
            <line className="tick" y1={12} y2={height} />
            <text className="tick-label" y={10} textAnchor={tickAnchor(x(t.us / 1000), width, textPx(t.label, 10))}>
              {t.label}
            </text>
          </g>
        ))}
        {clients.map((c, ci) =>
          c.belief.map((b) => (
            <rect
              key={`${c.name}${b.seq}`}
              className="strip-belief"
              x={x(b.fromUs / 1000)}
              width={Math.max(1, x(b.toUs / 1000) - x(b.fromUs / 1000))}
              y={height - 14 + ci * 6 - (clients.length - 1) * 6}
              height={4}
            >
              <title>{`${c.name} believed it held the lock in the last run, ${formatInstant(b.fromUs)} to ${formatInstant(b.toUs)}`}</title>
            </rect>
          )),
        )}
        {scenario.faults.map((f, i) => {
          const y = TOP + i * ROW_H;
          const at = x(f.atMs);
          const name = faultName(f.kind);
          const label = `${i + 1}. ${name}`;
          // A fault late on the axis has its name to the left of its marker, inside the strip.
          const flip = at + 8 + textPx(label, 10.5) > width && at - 8 - textPx(label, 10.5) >= 0;
          return (
            <g
              key={i}
              className="fault-marker"
              data-fault-mark={f.kind}
              data-at-ms={f.atMs}
              role="slider"
              tabIndex={0}
              aria-label={`Fault ${i + 1}: ${name}`}
              aria-valuemin={0}
              aria-valuemax={Math.round(horizonMs)}
              aria-valuenow={f.atMs}
              aria-valuetext={`${name} at ${formatInstant(f.atMs * 1000)}`}
              onPointerDown={(ev) => {
                dragging.current = i;
                ev.currentTarget.ownerSVGElement?.setPointerCapture(ev.pointerId);
              }}
              onKeyDown={(ev) => {
                const by = (ev.shiftKey ? 10 : 1) * step;
                if (ev.key === 'ArrowRight' || ev.key === 'ArrowLeft') {
                  ev.preventDefault();
                  ev.stopPropagation();
                  moveTo(i, Math.max(0, Math.min(horizonMs, f.atMs + (ev.key === 'ArrowRight' ? by : -by))));
                }
              }}
            >
              <title>{`${i + 1}. ${name} at ${formatInstant(f.atMs * 1000)}: drag to move it`}</title>
              <rect className="fault-strip-bar" x={at} y={y + BAR_Y} width={Math.max(3, x(f.atMs + faultDurationMs(f)) - at)} height={BAR_H} />
              <path className="fault-handle" d={`M${at},${y + BAR_Y - 5} l6,8 l-6,8 l-6,-8 Z`} />
              <text className="fault-strip-label" x={flip ? at - 8 : at + 8} y={y + 10} textAnchor={flip ? 'end' : 'start'}>
                {label}
              </text>
            </g>
          );
        })}
      </svg>
    </div>
  );
}
