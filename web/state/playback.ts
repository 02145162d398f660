import { useEffect } from 'react';
import { advance, holdMs, type Stops } from './pacing.js';
import { getTrace, type LoadedTrace } from './traces.js';
import { useUi } from './ui.js';

const stopsOf = new WeakMap<LoadedTrace, Map<string, Stops>>();

/** Where playback stops in a trace: every event a finding is about, and the stops a story adds. */
export function playbackStops(t: LoadedTrace, storyStops: readonly number[]): Stops {
  const key = storyStops.join(',');
  let byKey = stopsOf.get(t);
  if (byKey === undefined) stopsOf.set(t, (byKey = new Map()));
  let s = byKey.get(key);
  if (s === undefined) {
    const seqs = Int32Array.from(new Set([...t.annotations.flagged, ...storyStops.filter((q) => q >= 0 && q < t.doc.events.length)])).sort();
    s = { seqs, timesUs: Float64Array.from(seqs, (q) => t.model.times[q]!) };
    byKey.set(key, s);
  }
  return s;
}

/**
 * While playing, advance the playhead by wall-clock time times the speed,
 * one animation frame at a time, slowing near and holding on each stop
 * (see pacing.ts), and stop at the end of the trace.
 */
export function usePlayback(): void {
  const playing = useUi((s) => s.playing);
  useEffect(() => {
    if (!playing) return;
    let last = performance.now();
    let holdUntil = 0;
    let frame = requestAnimationFrame(function tick(now) {
      const s = useUi.getState();
      const t = getTrace(s.primaryId);
      if (t === null) return;
      const dt = now - last;
      last = now;
      frame = requestAnimationFrame(tick);
      if (now < holdUntil) return;
      const step = advance(playbackStops(t, s.storyStops), s.cursor, s.playheadUs, dt, s.speed);
      if (step.kind === 'stop') {
        s.seekSeq(step.seq);
        holdUntil = now + holdMs(s.speed);
        return;
      }
      if (step.toUs >= t.model.endUs) {
        cancelAnimationFrame(frame);
        s.seekTime(t.model.endUs);
        s.set({ playing: false });
        return;
      }
      s.seekTime(step.toUs);
    });
    return () => cancelAnimationFrame(frame);
  }, [playing]);
}
