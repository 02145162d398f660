import { formatInstant } from '../../sim/time.js';
import { Icon } from './Icon.js';
import type { LoadedTrace } from '../state/traces.js';
import { SPEEDS, useUi } from '../state/ui.js';
import { zoomBy } from '../state/zoom.js';

/** Play, pause, step, scrub, speed, zoom and the arrows toggle; every control also has a key (see the help). */
export function Transport({ trace }: { trace: LoadedTrace }) {
  const cursor = useUi((s) => s.cursor);
  const playing = useUi((s) => s.playing);
  const speed = useUi((s) => s.speed);
  const arrows = useUi((s) => s.arrows);
  const playheadUs = useUi((s) => s.playheadUs);
  const ui = useUi.getState();
  const n = trace.doc.events.length;
  return (
    <div className="transport" role="group" aria-label="Playback">
      <button type="button" onClick={() => ui.seekSeq(-1)} aria-label="Back to the start (Home)" title="Start (Home)">
        <Icon name="first" />
      </button>
      <button type="button" onClick={() => ui.stepBy(-1)} aria-label="Step one event back (←)" title="Step back (←)">
        <Icon name="back" />
      </button>
      <button
        type="button"
        className="play"
        onClick={() => ui.togglePlay()}
        aria-label={playing ? 'Pause (Space)' : 'Play (Space)'}
        aria-pressed={playing}
        title="Play / pause (Space)"
      >
        <Icon name={playing ? 'pause' : 'play'} />
      </button>
      <button type="button" onClick={() => ui.stepBy(1)} aria-label="Step one event forward (→)" title="Step forward (→)">
        <Icon name="forward" />
      </button>
      <button type="button" onClick={() => ui.seekSeq(n - 1)} aria-label="To the last event (End)" title="End (End)">
        <Icon name="last" />
      </button>
      <label className="scrub-range">
        <span className="sr-only">Event</span>
        <input
          type="range"
          min={-1}
          max={n - 1}
          step={1}
          value={cursor}
          onChange={(ev) => ui.seekSeq(Number(ev.target.value))}
          aria-valuetext={`event ${cursor + 1} of ${n}, ${formatInstant(playheadUs)}`}
        />
      </label>
      <span className="mono time-readout" aria-hidden="true">
        {formatInstant(playheadUs)}
      </span>
      <label title="Playback speed ([ slower, ] faster)">
        <span className="sr-only">Speed</span>
        <select value={speed} onChange={(ev) => ui.set({ speed: Number(ev.target.value) })} data-testid="speed">
          {SPEEDS.map((s) => (
            <option key={s} value={s}>
              {s}×
            </option>
          ))}
        </select>
      </label>
      <button type="button" onClick={() => zoomBy(0.5)} aria-label="Zoom in (+)" title="Zoom in (+)">
        <Icon name="plus" />
      </button>
      <button type="button" onClick={() => zoomBy(2)} aria-label="Zoom out (−)" title="Zoom out (−)">
        <Icon name="minus" />
      </button>
      <button type="button" onClick={() => ui.set({ domain: null })} aria-label="Show the whole trace (0)" title="Whole trace (0)">
        <Icon name="fit" />
      </button>
      <label className="check" title="Request/response arrows between the lanes (a)">
        <input type="checkbox" checked={arrows} onChange={(ev) => ui.set({ arrows: ev.target.checked })} /> Arrows
      </label>
    </div>
  );
}
