import { firstAtOrAfter } from '../model/search.js';

/*
 * How playback moves the playhead: at the chosen speed, but slower near the
 * events the checker flagged (and a story's stops), landing exactly on each
 * of them and holding there a moment, so no key moment passes between two
 * frames however fast the speed. Pure: the caller owns the clock.
 */

/** Wall time spent crossing the slow zone on each side of a stop, at the chosen speed before slowing. */
export const APPROACH_MS = 400;
/** How much slower the playhead moves inside a slow zone. */
export const SLOW = 1 / 3;

/** How long playback holds on a stop, shorter at high speeds so a long trace with many findings still plays. */
export function holdMs(speed: number): number {
  return Math.round(1200 / Math.max(1, Math.log10(Math.max(1, speed))));
}

export interface Stops {
  /** Seqs to stop at, ascending. */
  readonly seqs: ArrayLike<number>;
  /** Their true times, ascending with them. */
  readonly timesUs: ArrayLike<number>;
}

export type Step = { readonly kind: 'move'; readonly toUs: number } | { readonly kind: 'stop'; readonly seq: number };

/** The first stop after the cursor, by seq (several events can share an instant). */
function nextStop(stops: Stops, cursor: number): number {
  return firstAtOrAfter(stops.seqs, cursor + 1);
}

/** Whether an instant is within the slow zone of a stop: close to the next one ahead or the last one passed. */
function slowAt(stops: Stops, i: number, playheadUs: number, zoneUs: number): boolean {
  const ahead = stops.timesUs[i];
  const behind = stops.timesUs[i - 1];
  return (ahead !== undefined && ahead - playheadUs <= zoneUs) || (behind !== undefined && playheadUs - behind <= zoneUs);
}

/**
 * One frame of playback: `dtMs` of wall time at `speed` from the playhead.
 * Lands on the next stop instead when the frame would reach or pass it.
 */
export function advance(stops: Stops, cursor: number, playheadUs: number, dtMs: number, speed: number): Step {
  const i = nextStop(stops, cursor);
  const zoneUs = APPROACH_MS * 1000 * speed;
  const rate = slowAt(stops, i, playheadUs, zoneUs) ? SLOW : 1;
  const toUs = playheadUs + dtMs * 1000 * speed * rate;
  const stopUs = stops.timesUs[i];
  if (stopUs !== undefined && stopUs <= toUs) return { kind: 'stop', seq: stops.seqs[i]! };
  return { kind: 'move', toUs };
}
