import { AFTER_END } from '../timeline/layout.js';
import { getTrace } from './traces.js';
import { useUi } from './ui.js';

const domains = new Map<string, readonly [number, number]>();

/**
 * The whole time axis of what is on screen: both traces when two are
 * compared, with a little room after the last event so its label fits.
 * The same pair of traces always gets the same array, so views that
 * depend on it do not redraw for nothing.
 */
export function fullDomainOf(primaryId: string | null, secondaryId: string | null): readonly [number, number] {
  const key = `${primaryId}|${secondaryId}`;
  let d = domains.get(key);
  if (d === undefined) {
    const a = getTrace(primaryId)?.model.endUs ?? 1;
    const b = getTrace(secondaryId)?.model.endUs ?? 0;
    d = [0, Math.ceil(Math.max(a, b, 1) * AFTER_END)];
    if (domains.size > 64) domains.clear();
    domains.set(key, d);
  }
  return d;
}

/** Zooms by a factor around the playhead (factor < 1 zooms in), clamped to the whole trace. */
export function zoomBy(factor: number): void {
  const s = useUi.getState();
  const full = fullDomainOf(s.primaryId, s.view === 'compare' ? s.secondaryId : null);
  const [a, b] = s.domain ?? full;
  const span = Math.max(20, Math.min(full[1] - full[0], (b - a) * factor));
  const centre = s.playheadUs >= a && s.playheadUs <= b ? s.playheadUs : (a + b) / 2;
  const frac = (centre - a) / Math.max(1, b - a);
  let from = centre - span * frac;
  from = Math.max(full[0], Math.min(full[1] - span, from));
  const next: [number, number] = [Math.round(from), Math.round(from + span)];
  s.set({ domain: next[0] <= full[0] && next[1] >= full[1] ? null : next });
}

/** Pans by a fraction of the visible window (negative: towards earlier time). */
export function panBy(fraction: number): void {
  const s = useUi.getState();
  if (s.domain === null) return;
  const full = fullDomainOf(s.primaryId, s.view === 'compare' ? s.secondaryId : null);
  const [a, b] = s.domain;
  const shift = Math.max(full[0] - a, Math.min(full[1] - b, (b - a) * fraction));
  s.set({ domain: [Math.round(a + shift), Math.round(b + shift)] });
}
