import type { ScaleLinear } from 'd3-scale';
import { useMemo, useRef } from 'react';
import { formatInstant } from '../../sim/time.js';
import { localAt } from '../model/state-at.js';
import type { LoadedTrace } from '../state/traces.js';
import { useCursorOf, useUi } from '../state/ui.js';
import { AXIS_H, clockText, clockY, textPx, type Lane } from './layout.js';

/**
 * The room a lane's clock has in the gutter: up to a client's row name
 * "store" at its right edge, written on the same line. Every lane's clock
 * gets the same room, so that they all read alike.
 */
const clockRoom = (gutter: number): number => gutter - 6 - textPx('store', 11) - 6 - 8;

interface Props {
  trace: LoadedTrace;
  lanes: readonly Lane[];
  x: ScaleLinear<number, number>;
  height: number;
  /** The primary trace follows the cursor exactly; another trace its last event at the playhead's time (see `useCursorOf`). */
  primary: boolean;
  gutter: number;
}

/**
 * What moves with the playhead: the line, its draggable handle, the current
 * event's dot, and each lane's local clock reading. Kept apart from the
 * static marks so that scrubbing re-renders only this.
 */
export function Overlay({ trace, lanes, x, height, primary, gutter }: Props) {
  const playheadUs = useUi((s) => s.playheadUs);
  const seekTime = useUi((s) => s.seekTime);
  const dragging = useRef(false);
  const clocks = useMemo(() => new Map(trace.model.machines.map((m) => [m.name, m])), [trace.model]);
  const cursor = useCursorOf(trace, primary);
  const e = cursor >= 0 ? trace.doc.events[cursor] : undefined;
  const laneOfEvent =
    e === undefined ? undefined : lanes.find((l) => l.name === e.actor || (l.kind === 'faults' && (e.actor === 'faults' || e.actor === 'net')));
  const [d0, d1] = x.domain() as [number, number];
  const inView = playheadUs >= d0 && playheadUs <= d1;
  const px = x(playheadUs);

  const onPointer = (ev: React.PointerEvent<SVGGElement>) => {
    if (ev.type === 'pointerdown') {
      dragging.current = true;
      ev.currentTarget.setPointerCapture(ev.pointerId);
    } else if (ev.type === 'pointerup' || ev.type === 'pointercancel') {
      dragging.current = false;
      return;
    }
    if (!dragging.current) return;
    const svg = ev.currentTarget.ownerSVGElement;
    if (svg === null) return;
    const r = svg.getBoundingClientRect();
    seekTime(x.invert(ev.clientX - r.left - gutter));
  };

  return (
    <>
      <g className="lane-clocks" aria-hidden="true">
        {lanes.map((l) => {
          if (l.machine === '') return null;
          const clock = clocks.get(l.machine);
          const local = clock === undefined ? null : localAt(clock, playheadUs);
          return (
            <text key={l.id} className="lane-clock" x={8} y={clockY(l)} data-clock={l.machine}>
              {local === null ? '' : clockText(formatInstant(local), clockRoom(gutter))}
            </text>
          );
        })}
      </g>
      <g transform={`translate(${gutter},0)`}>
        {inView && (
          <g data-mark="playhead" data-us={playheadUs}>
            <line className="playhead" x1={px} x2={px} y1={AXIS_H - 8} y2={height} />
            {e !== undefined && laneOfEvent !== undefined && e.timeUs >= d0 && e.timeUs <= d1 && (
              <circle
                className="current-event"
                cx={x(e.timeUs)}
                cy={laneOfEvent.kind === 'client' && e.kind.startsWith('lock.') ? laneOfEvent.truthY : laneOfEvent.rowY}
                r={9}
                data-mark="current-event"
              />
            )}
            <g
              className="scrub"
              transform={`translate(${px},${AXIS_H - 8})`}
              onPointerDown={onPointer}
              onPointerMove={onPointer}
              onPointerUp={onPointer}
              onPointerCancel={onPointer}
            >
              <title>Drag to scrub</title>
              <path className="scrub-handle" d="M-7,-12 L7,-12 L7,-4 L0,3 L-7,-4 Z" />
            </g>
          </g>
        )}
      </g>
    </>
  );
}
