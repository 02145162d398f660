import { useEffect } from 'react';
import { getTrace } from './traces.js';
import { useUi } from './ui.js';

/**
 * While playing, advance the playhead by wall-clock time times the speed,
 * one animation frame at a time, and stop at the end of the trace.
 */
export function usePlayback(): void {
  const playing = useUi((s) => s.playing);
  useEffect(() => {
    if (!playing) return;
    let last = performance.now();
    let frame = requestAnimationFrame(function tick(now) {
      const s = useUi.getState();
      const t = getTrace(s.primaryId);
      if (t === null) return;
      const next = s.playheadUs + (now - last) * 1000 * s.speed;
      last = now;
      if (next >= t.model.endUs) {
        s.seekTime(t.model.endUs);
        s.set({ playing: false });
        return;
      }
      s.seekTime(next);
      frame = requestAnimationFrame(tick);
    });
    return () => cancelAnimationFrame(frame);
  }, [playing]);
}
