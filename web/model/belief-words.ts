import { formatDuration } from '../../sim/time.js';
import type { ClientView } from './state-at.js';

/*
 * What a client believes, said from one instant. The belief it last recorded
 * carries the lease time it had left then; what it has left now is the
 * view's own figure (ClientView.ttlLeftUs, by its clock at that instant), so
 * the words use only that one and cannot say "9 s left" of a lease run out.
 */

/** "9 s left" or "ran out 1.346 ms ago": a lease's time left by the client's own clock. */
export function leaseLeftWords(ttlLeftUs: number): string {
  return ttlLeftUs >= 0 ? `${formatDuration(ttlLeftUs)} left` : `ran out ${formatDuration(-ttlLeftUs)} ago`;
}

/** "holds A:1 #33 while paused, though by its own clock its lease ran out 1.346 ms ago": what a client believes at the view's instant. */
export function beliefWords(view: Pick<ClientView, 'belief' | 'ttlLeftUs' | 'paused'>): string {
  const paused = view.paused ? ' while paused' : '';
  const b = view.belief;
  if (b === null) return `nothing yet${view.paused ? ', while paused' : ''}`;
  if (!b.holds) return `that it holds nothing${view.paused ? ', while paused' : ''}`;
  const held = `holds ${b.owner ?? '?'}${b.fence === undefined ? '' : ` #${b.fence}`}${paused}`;
  if (view.ttlLeftUs === null) return held;
  if (view.ttlLeftUs >= 0) return `${held}, ${leaseLeftWords(view.ttlLeftUs)} by its own clock`;
  return `${held}, though by its own clock its lease ${leaseLeftWords(view.ttlLeftUs)}`;
}
